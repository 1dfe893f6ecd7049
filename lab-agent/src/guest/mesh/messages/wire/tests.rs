use super::*;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Two {
    n: Field<u8>,
    names: List<String>,
}

/// A field is absent, read, or kept unread; one element a peer got wrong
/// is that element's loss, not the message's.
#[test]
fn a_field_of_another_type_is_kept_unread_not_the_messages_end() {
    let text = r#"{"n":300,"names":["a",1,"b",null]}"#;
    let t: Two = serde_json::from_str(text).unwrap();
    assert_eq!(t.n, Field::Unread(serde_json::json!(300)));
    assert_eq!(
        elements(t.names, 2).collect::<Vec<_>>(),
        ["a"],
        "the first two elements, of which one is a string"
    );
    let t: Two = serde_json::from_str(text).unwrap();
    assert_eq!(elements(t.names, 9).collect::<Vec<_>>(), ["a", "b"]);
    let t: Two = serde_json::from_str(r#"{"n":null,"names":"a"}"#).unwrap();
    assert_eq!(t.n, Field::Absent);
    assert_eq!(elements(t.names, 9).count(), 0);
    let t: Two = serde_json::from_str("{}").unwrap();
    assert_eq!((t.n, t.names.read()), (Field::Absent, None));
    assert!(serde_json::from_str::<Two>("7").is_err(), "not an object");
}

/// What is written reads back as it was, an unread value as it came.
#[test]
fn a_field_is_written_as_it_reads() {
    let t = Two {
        n: Field::Read(7),
        names: listed(["x".to_string()]),
    };
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"n":7,"names":["x"]}"#
    );
    let t = Two {
        n: Field::Unread(serde_json::json!("seven")),
        names: Field::Absent,
    };
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"n":"seven","names":null}"#
    );
}
