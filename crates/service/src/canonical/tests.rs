//! The canonical form against RFC 8785's examples and the reference test data, and the plain
//! scanner against serde_json.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{canonicalize, string_end, Plain};
use crate::chain::canonical;

fn canonicalized(text: &str) -> String {
    let mut out = Vec::new();
    canonicalize(text, &mut out).expect("JSON text");
    String::from_utf8(out).expect("UTF-8")
}

fn as_a_value_writes_it(text: &str) -> String {
    canonical(&serde_json::from_str::<Value>(text).expect("JSON text"))
}

#[test]
fn json_text_is_written_as_its_value_is() {
    for text in [
        r#"{"kind": "result", "tricks": [3, 3, 3], "contract": {"trumps": "hearts", "contract": "play"}, "top": null}"#,
        r#"[{"deal": 1, "event": "deal_scored", "outcome": {"outcome": "draw"}}, {"transfers": [{"to": {"reserve": 498}, "from": {"seat": 1}, "amount": 60}]}]"#,
        r#"{"b": 1, "a": 2, "b": 3}"#,
        r#"{"\u00e9": "caf\u00e9", "e\"q": "tab\there", "Z": "\ud83c\udca1", "a/b": "<\/script>"}"#,
        r#"[1.50, -0.0, 1e3, 12345678901234567890, 123456789012345678901234, -9223372036854775808, 0.1, 2.5e-8]"#,
        r#"{"": {}, "x": [], "y": [[], [{}]], "z": true, "w": false}"#,
        r#"  "just a string"  "#,
        "7",
        "null",
    ] {
        assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}");
    }
}

/// RFC 8785's examples (sections 3.2.2 and 3.2.3) and the reference implementations' test
/// data, byte for byte, from text and from a value.
#[test]
fn the_json_canonicalization_schemes_examples_are_written_byte_for_byte() {
    macro_rules! vectors {
        ($($name:literal),*) => {
            [$((
                $name,
                include_str!(concat!("../../../../tests/fixtures/rfc8785/input/", $name, ".json")),
                include_str!(concat!("../../../../tests/fixtures/rfc8785/output/", $name, ".json")),
            )),*]
        };
    }
    for (name, input, output) in vectors!("arrays", "french", "structures", "unicode", "values", "weird") {
        assert_eq!(canonicalized(input), output, "{name}, from text");
        assert_eq!(as_a_value_writes_it(input), output, "{name}, from a value");
    }
}

/// RFC 8785, Appendix B: IEEE-754 doubles (as hex) and how they are written.
#[test]
fn numbers_are_written_as_the_rfcs_appendix_b_writes_them() {
    for (bits, expected) in [
        (0x0000000000000000_u64, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ] {
        let value = f64::from_bits(bits);
        let number = serde_json::Number::from_f64(value).expect("finite");
        let mut out = Vec::new();
        super::write_number(&number, &mut out);
        assert_eq!(String::from_utf8(out).expect("ASCII"), expected, "{bits:016x}");
        // The same double read back from the shortest text that names it.
        assert_eq!(canonicalized(&format!("{value:e}")), expected, "{bits:016x} from text");
    }
    // Integers past 2^53 are doubles too; below it they are their digits however long.
    for (text, expected) in [
        ("9007199254740993", "9007199254740992"),
        ("12345678901234567890", "12345678901234567000"),
        ("-9223372036854775808", "-9223372036854776000"),
        ("999999999999999", "999999999999999"),
        ("4503599627370497", "4503599627370497"),
        ("-0", "0"),
        ("1.0", "1"),
    ] {
        assert_eq!(canonicalized(text), expected, "{text}");
        assert_eq!(as_a_value_writes_it(text), expected, "{text} as a value");
    }
}

#[test]
fn keys_are_sorted_by_their_utf_16_code_units_not_their_bytes() {
    // By UTF-8 bytes U+FB33 (EF AC B3) comes before U+1F602 (F0 9F 98 82); by UTF-16 code
    // units U+1F602 (D83D DE02) comes first.
    let text = r#"{"\ufb33": 1, "\ud83d\ude02": 2, "z": 3, "\u00e9": 4}"#;
    let sorted = "{\"z\":3,\"\u{e9}\":4,\"\u{1f602}\":2,\"\u{fb33}\":1}";
    assert_eq!(canonicalized(text), sorted);
    assert_eq!(as_a_value_writes_it(text), sorted);
}

/// Whether the writer of plain text writes `text` itself (rather than leaving it to
/// serde_json); when it does not, it writes nothing.
fn read_plainly(text: &str) -> bool {
    let mut out = b"kept".to_vec();
    let written = Plain::write(text, &mut out);
    assert!(written || out == b"kept", "{text}");
    written
}

#[test]
fn plain_text_is_read_by_the_scanner_and_anything_else_by_serde_json() {
    for text in [
        r#"{"deal": 1, "event": "deal_scored", "tricks": [3, 3, 3], "outcome": {"outcome": "draw"}, "x": null}"#,
        "[true,false,null,0,-1,123456789012345,-123456789012345]",
        " \t\r\n[ ] ",
        r#"{"a": 1, "a": {"y": [], "x": 0, "y": {}}, "": 2}"#,
        r#"{"a": 1, "b": 2, "c": {"d": 3}}"#,
        "{\"caf\u{e9}\": \"\u{2028}\u{7f}\u{1f0a1}\"}",
    ] {
        assert!(read_plainly(text), "{text}");
        assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}");
    }
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for text in [
        r#"{"a\"b": 1}"#,
        r#"["\u00e9"]"#,
        "-0",
        "[-0]",
        "1.0",
        "1e3",
        "2E-2",
        "1234567890123456",
        "-1234567890123456",
        "1234567890123456789",
        "-1234567890123456789",
        "18446744073709551616",
        "01",
        "-",
        "[1,]",
        r#"{"a": 1,}"#,
        r#"{"a" 1}"#,
        r#"{1: 2}"#,
        "[1 2]",
        "tru",
        "nul",
        "[true1]",
        "\"\t\"",
        "\"open",
        "",
        "  ",
        "1 2",
        "{}}",
        &deep(101),
        &deep(200),
    ] {
        assert!(!read_plainly(text), "{text}");
        match serde_json::from_str::<Value>(text) {
            Ok(_) => assert_eq!(canonicalized(text), as_a_value_writes_it(text), "{text}"),
            Err(_) => assert!(canonicalize(text, &mut Vec::new()).is_err(), "{text}"),
        }
    }
    assert!(read_plainly(&deep(100)));
    assert_eq!(canonicalized(&deep(100)), deep(100));
}

proptest! {
    // Eight bytes at a time finds what one at a time finds: the first quote, backslash or
    // control character, wherever it falls in a word.
    #[test]
    fn the_end_of_a_string_is_found_as_byte_by_byte(bytes in prop::collection::vec(
        prop_oneof![1 => Just(b'"'), 1 => Just(b'\\'), 1 => 0_u8..0x20, 30 => 0x20_u8..=0xff], 0..64)
    ) {
        let byte_by_byte = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
        prop_assert_eq!(string_end(&bytes), byte_by_byte);
    }
}

#[test]
fn text_that_is_not_one_json_value_is_refused() {
    for text in ["", "{", r#"{"a": 1} 2"#, "[1,]", "{'a': 1}"] {
        assert!(canonicalize(text, &mut Vec::new()).is_err(), "{text}");
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(("[a-c\u{e9}\"\\\\]{0,3}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    // Written in any key order and spacing (as the database writes JSON, or the engine
    // serialises its events), text canonicalises as the value it parses to.
    #[test]
    fn any_json_text_is_written_as_its_value_is(value in any_json()) {
        let pretty = serde_json::to_string_pretty(&value).expect("a value writes");
        prop_assert_eq!(canonicalized(&pretty), as_a_value_writes_it(&pretty));
        let reversed = reversed_keys(&value);
        prop_assert_eq!(canonicalized(&reversed), as_a_value_writes_it(&reversed));
    }
}

/// JSON as the scanner of plain text reads it: integers that fit, strings without escapes.
fn plain_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-999_999_999_999_999_i64..=999_999_999_999_999).prop_map(Value::from),
        (0_i64..100).prop_map(Value::from),
        "[a-zA-Z0-9 _:\u{e9}\u{1f0a1}]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(("[a-c_\u{e9}]{0,3}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    // The texts the audit reads (the database's, serde_json's) are plain: the scanner reads
    // them, in any spacing and key order, and writes what the value writes.
    #[test]
    fn plain_json_text_is_read_by_the_scanner_and_written_as_its_value_is(value in plain_json()) {
        for text in [
            serde_json::to_string(&value).expect("a value writes"),
            serde_json::to_string_pretty(&value).expect("a value writes"),
            reversed_keys(&value),
        ] {
            prop_assert!(read_plainly(&text), "{}", text);
            prop_assert_eq!(canonicalized(&text), as_a_value_writes_it(&text));
        }
    }
}

/// The value as JSON text with every object's keys in reverse order.
fn reversed_keys(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), reversed_keys(v)))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(reversed_keys).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}
