use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn message_buffers_round_trip(text in proptest::collection::vec(1u8..=127, 0..1500)) {
        let text = String::from_utf8(text).expect("ASCII");
        let buf = message_buffer(&text);
        prop_assert_eq!(buf.len(), BUFFER_SIZE);
        prop_assert_eq!(buf[BUFFER_SIZE - 1], 0);
        prop_assert_eq!(c_str_lossy(&buf), &text[..text.len().min(BUFFER_SIZE - 1)]);
    }

    #[test]
    fn any_received_buffer_prints_without_panic(b in proptest::collection::vec(any::<u8>(), 0..2048)) {
        prop_assert!(!c_str_lossy(&b).contains('\0'));
    }
}
