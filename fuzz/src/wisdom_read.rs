//! Target `wisdom_read`: arbitrary text into the wisdom parser
//! ([`Wisdom::from_json`], what `Wisdom::load` runs on a file's text).
//!
//! The bytes are taken as UTF-8 (invalid sequences replaced, so every input
//! is text). The parser must return `Ok` or [`Error::Wisdom`] with a
//! message that formats, and an accepted file must be usable:
//!
//! * it has this build's [`WISDOM_VERSION`];
//! * round trip: `from_json(to_json(w)) == w`, and the JSON is then stable;
//! * what the planner does with it does not panic: the Markdown table,
//!   every winner's `Display`, [`Wisdom::lookup`] of every entry's key
//!   (which finds an entry with that key), [`decide`] for that key (which
//!   takes the looked-up winner) and its summary, and re-inserting every
//!   entry (which leaves at most one entry per key).

use polymul::Error;
use polymul::planner::{Modulus, WISDOM_VERSION, Wisdom, decide};
use std::path::Path;

/// Runs the checks on one input.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let origin = Path::new("fuzz-wisdom.json");
    let w = match Wisdom::from_json(&text, origin) {
        Ok(w) => w,
        Err(e) => {
            assert!(matches!(e, Error::Wisdom { .. }), "unexpected error kind: {e:?}");
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    assert_eq!(w.version, WISDOM_VERSION);

    let json = w.to_json();
    let back = Wisdom::from_json(&json, origin).unwrap_or_else(|e| panic!("own JSON refused: {e}\n{json}"));
    assert_eq!(back, w, "round trip changed the wisdom\n{json}");
    assert_eq!(back.to_json(), json);

    let _ = w.markdown_table();
    let mut deduplicated = Wisdom::new();
    for e in &w.entries {
        let _ = e.winner.to_string();
        let found = w.lookup(&e.key).expect("lookup of an entry's own key");
        assert_eq!(found.key, e.key);
        let n = 1usize << e.key.log_n.min(24);
        let d = decide(&e.key, &Modulus::Bits(30), n, Some(&w));
        assert!(d.from_wisdom);
        assert_eq!(d.choice, found.winner);
        let _ = d.summary();
        deduplicated.insert(e.clone());
    }
    for (i, e) in deduplicated.entries.iter().enumerate() {
        assert!(deduplicated.entries[..i].iter().all(|x| x.key != e.key));
    }
}
