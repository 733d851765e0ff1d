//! Per-kernel performance directives added to the PTX after `llc`: rustc has
//! no attribute for PTX's `.maxnreg` (LLVM's `nvvm.maxnreg`), so the kernel
//! build writes it into the entry's header itself.

/// `ptx` with `.maxnreg N` after the parameter list of every entry named in
/// `caps` (replacing a `.maxnreg` already there, so applying it twice
/// changes nothing). Errors name the first entry that is not in the module
/// (a stale table), so a cap can never silently stop applying.
pub fn with_register_caps(ptx: &str, caps: &[(String, u32)]) -> Result<String, String> {
    let mut out = String::with_capacity(ptx.len() + caps.len() * 16);
    let mut pending: Option<u32> = None;
    let mut applied = 0usize;
    let mut just_capped = false;
    for line in ptx.split_inclusive('\n') {
        if std::mem::take(&mut just_capped) && line.trim_start().starts_with(".maxnreg") {
            continue;
        }
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            let name = rest.split('(').next().unwrap_or("");
            pending = caps.iter().find(|(n, _)| n == name).map(|&(_, c)| c);
        }
        out.push_str(line);
        // The parameter list ends with a line holding `)` (and maybe a comment).
        let closes = line.split("//").next().is_some_and(|code| code.trim() == ")");
        if let (Some(cap), true) = (pending, closes) {
            out.push_str(&format!(".maxnreg {cap}\n"));
            pending = None;
            applied += 1;
            just_capped = true;
        }
    }
    if applied != caps.len() {
        let missing = caps
            .iter()
            .find(|(n, _)| !ptx.contains(&format!(".visible .entry {n}(")))
            .map_or("?", |(n, _)| n.as_str());
        return Err(format!(
            "{} of {} register caps applied; no entry `{missing}` in the PTX",
            applied,
            caps.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".visible .entry a(\n\t.param .u64 a_param_0\n)  // @a\n{\n\tret;\n}\n\
                       .visible .entry b(\n\t.param .u64 b_param_0\n)\n{\n\tret;\n}\n";

    #[test]
    fn caps_go_between_the_parameters_and_the_body() {
        let out = with_register_caps(PTX, &[("b".into(), 40)]).unwrap();
        assert!(out.contains(".visible .entry b(\n\t.param .u64 b_param_0\n)\n.maxnreg 40\n{"));
        assert_eq!(out.matches(".maxnreg").count(), 1);
        let out = with_register_caps(PTX, &[("a".into(), 64), ("b".into(), 32)]).unwrap();
        assert!(out.contains(")  // @a\n.maxnreg 64\n{"));
        assert!(out.contains(".maxnreg 32\n{"));
    }

    #[test]
    fn capping_twice_is_capping_once() {
        let caps = [("a".to_string(), 64), ("b".to_string(), 32)];
        let once = with_register_caps(PTX, &caps).unwrap();
        assert_eq!(with_register_caps(&once, &caps).unwrap(), once);
        let other = with_register_caps(&once, &[("a".into(), 48)]).unwrap();
        assert!(other.contains(".maxnreg 48\n{") && !other.contains(".maxnreg 64"));
    }

    #[test]
    fn a_missing_entry_is_an_error() {
        let e = with_register_caps(PTX, &[("c".into(), 40)]).unwrap_err();
        assert!(e.contains("`c`"), "{e}");
    }
}
