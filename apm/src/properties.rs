use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn any_private_data_decodes_or_fails_cleanly(b in proptest::collection::vec(any::<u8>(), 0..256)) {
        prop_assert_eq!(get_alt_dlid_from_private_data(&b).is_ok(), b.len() >= 2);
    }

    #[test]
    fn our_dlid_round_trips_through_cm_padding(dlid: u16, pad in proptest::collection::vec(any::<u8>(), 0..54)) {
        let sent = [&dlid.to_be_bytes()[..], &pad].concat();
        prop_assert_eq!(get_alt_dlid_from_private_data(&sent).unwrap(), dlid);
    }
}
