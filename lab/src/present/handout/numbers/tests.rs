use super::*;

fn values(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Answers as a capture would: the filter's name stands for its values.
fn capture(q: &Query) -> Answer {
    let frames = match q.filter {
        "sends" => values(&["0x13", "0x13", "0x32"]),
        "reth" => values(&["0x00007f8844df6000"]),
        // A frame the filter matches without the field: no value.
        "none" => values(&[""]),
        "uncaptured" => return Ok(None),
        other => return Err(format!("no such filter: {other}")),
    };
    value(q, &frames, &values(&["0x13"])).map(Some)
}

#[test]
fn placeholders_are_filled_from_the_capture() {
    let text = "{count:sends} SENDs to {distinct:infiniband.bth.destqp:sends} QPs, \
                the first to {first:infiniband.bth.destqp:sends}, {per:f:sends:x} a message; the manual's \
                client aims at {high32:infiniband.reth.va:reth}; {count:none} NAKs.";
    assert_eq!(
        fill(text, &capture).unwrap(),
        "3 SENDs to 2 QPs, the first to 0x13, 2 a message; the manual's client aims at \
         0x00007f88; 0 NAKs."
    );
}

#[test]
fn a_checked_number_stays_when_its_capture_agrees_and_fails_when_not() {
    assert_eq!(
        fill("It takes 3<!--{count:sends}--> packets.", &capture).unwrap(),
        "It takes 3 packets."
    );
    let err = fill("It takes 98<!--{count:sends}--> packets.", &capture).unwrap_err();
    assert!(err.contains("says 98, its capture 3"), "{err}");
    // A run without that capture: the number as stated, a placeholder
    // saying so, and nothing of the comment.
    assert_eq!(
        fill(
            "98<!--{count:uncaptured}--> packets, {count:uncaptured} NAKs",
            &capture
        )
        .unwrap(),
        format!("98 packets, {NOT_CAPTURED} NAKs")
    );
    assert_eq!(
        unfilled("PSN 0<!--{first:f:x}-->, {count:y} frames"),
        format!("PSN 0, {NOT_CAPTURED} frames")
    );
}

#[test]
fn other_braces_stay_text_and_bad_placeholders_fail() {
    assert_eq!(fill("a {b} {x:y}", &capture).unwrap(), "a {b} {x:y}");
    assert!(fill("{first:infiniband.bth.psn:none}", &capture).is_err());
    assert!(fill("{distinct:sends}", &capture).is_err());
    assert!(fill("{count:bogus}", &capture).is_err());
    assert!(fill("{per:f:sends}", &capture).is_err());
    assert!(fill("{distinct:f:none}", &capture).unwrap() == "0");
    // 3 frames, 2 values, for 1 value: whole; 2 for 0 is not.
    assert!(fill("{per:f:none:x}", &capture).unwrap() == "0");
    assert_eq!(
        parse("count@srq:ip.src==192.0.2.1"),
        Some(Ok(Query {
            kind: Kind::Count,
            scenario: Some("srq"),
            field: "frame.number",
            filter: "ip.src==192.0.2.1",
            per: None,
        }))
    );
    assert_eq!(
        placeholders("{count:a} {b} {first:f:c}"),
        ["count:a", "first:f:c"]
    );
}

#[test]
fn hand_written_counts_are_found() {
    for (text, found) in [
        ("the server sends 164 Send First packets", "164 send first"),
        (
            "First and Last packets of 100 distinct PSNs each way",
            "100 distinct psns",
        ),
        ("PSN 4..7 in frames 26-29", "psn"),
        ("its QP 0x18, and frame 34", "qp 0x18"),
    ] {
        let got = hand_written(text);
        assert!(got.iter().any(|g| g.contains(found)), "{text}: {got:?}");
    }
    for fine in [
        "{count:x} packets and {distinct:f:y} PSNs",
        "98<!--{count:x}--> packets",
        "the first 4 bytes, 64 bits, `-n 100` messages of 1024 bytes",
        "status 0xd, IBV_WC_RNR_RETRY_EXC_ERR",
    ] {
        assert_eq!(hand_written(fine), Vec::<String>::new(), "{fine}");
    }
}

#[test]
fn a_psn_keyed_by_its_qp_counts_apart_from_another_qps() {
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // Two QPs' messages of 2 packets each, PSN 5-6 and 6-7: by PSN alone,
    // 3 values for 2 firsts (not a whole number each); keyed, 4 for 2.
    let keyed = parse("per:infiniband.bth.destqp,infiniband.bth.psn:sends:firsts")
        .unwrap()
        .unwrap();
    let sends = lines(&["0x12\t5", "0x12\t6", "0x13\t6", "0x13\t7", "\t"]);
    let firsts = lines(&["0x12\t5", "0x13\t6"]);
    assert_eq!(value(&keyed, &sends, &firsts).unwrap(), "2");
    let alone = parse("per:infiniband.bth.psn:sends:firsts")
        .unwrap()
        .unwrap();
    let err = value(&alone, &lines(&["5", "6", "6", "7"]), &lines(&["5", "6"])).unwrap_err();
    assert!(err.contains("not a whole number"), "{err}");
}

/// `last` and `hexlast` read the last matching frame's value (the second
/// connection's, where the first's is `first`'s), skipping frames
/// without the field, as the ladder prints it.
#[test]
fn last_reads_the_last_frames_value() {
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let qps = lines(&["0x00001f", "0x000020", ""]);
    let q = |spec| parse(spec).unwrap().unwrap();
    assert_eq!(value(&q("hex:f:x"), &qps, &[]).unwrap(), "0x1f");
    assert_eq!(value(&q("hexlast:f:x"), &qps, &[]).unwrap(), "0x20");
    assert_eq!(value(&q("last:f:x"), &qps, &[]).unwrap(), "0x000020");
    assert!(value(&q("last:f:x"), &lines(&[""]), &[]).is_err());
}
