//! Result tables: Markdown for people, CSV for plots, both stamped with the
//! device, date and command that produced them.

use std::fmt::Write as _;
use std::path::Path;

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today_utc() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 → (year, month, day) (H. Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A table with a title, a header row and data rows.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Title (a Markdown heading).
    pub title: String,
    /// A paragraph under the title.
    pub note: String,
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with the given title and columns.
    pub fn new(title: &str, header: &[&str]) -> Self {
        Self {
            title: title.into(),
            header: header.iter().map(|s| s.to_string()).collect(),
            ..Self::default()
        }
    }

    /// Markdown rendering.
    pub fn markdown(&self) -> String {
        let mut s = format!("## {}\n\n", self.title);
        if !self.note.is_empty() {
            let _ = writeln!(s, "{}\n", self.note);
        }
        let _ = writeln!(s, "| {} |", self.header.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(self.header.len()));
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }

    /// CSV rendering (header first).
    pub fn csv(&self) -> String {
        let mut s = csv_row(&self.header) + "\n";
        for r in &self.rows {
            s += &(csv_row(r) + "\n");
        }
        s
    }
}

/// Writes `name.md` (all tables under a preamble, then links to the
/// figures), one CSV per table, and each figure `(file name, SVG)`.
pub fn write(
    dir: &Path,
    name: &str,
    preamble: &str,
    tables: &[Table],
    figures: &[(String, String)],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (file, svg) in figures {
        write_atomically(&dir.join(file), svg)?;
    }
    let mut md = preamble.to_string();
    for (file, _) in figures {
        md += &format!("\n![{file}]({file})\n");
    }
    for t in tables {
        md += "\n";
        md += &t.markdown();
    }
    write_atomically(&dir.join(format!("{name}.md")), &md)?;
    for (i, t) in tables.iter().enumerate() {
        write_atomically(&dir.join(format!("{name}-{i}.csv")), &t.csv())?;
    }
    Ok(())
}

/// Writes `text` to a temporary file beside `path` and renames it onto
/// `path`: an error never leaves a partial file (the temporary one is
/// removed).
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_778), (2026, 11, 21));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn tables_render() {
        let mut t = Table::new("T", &["a", "b"]);
        t.rows.push(vec!["1".into(), "2".into()]);
        assert_eq!(t.csv(), "a,b\n1,2\n");
        assert!(t.markdown().contains("| 1 | 2 |"));
    }
}

/// One CSV line (RFC 4180): fields with a comma, quote or newline are quoted.
fn csv_row<S: AsRef<str>>(fields: &[S]) -> String {
    let field = |f: &str| {
        if f.contains([',', '"', '\n']) { format!("\"{}\"", f.replace('"', "\"\"")) } else { f.to_string() }
    };
    fields.iter().map(|f| field(f.as_ref())).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod csv_tests {
    #[test]
    fn csv_quotes_fields_with_commas_and_quotes() {
        assert_eq!(super::csv_row(&["a", "b,c", "say \"hi\""]), "a,\"b,c\",\"say \"\"hi\"\"\"");
    }
}
