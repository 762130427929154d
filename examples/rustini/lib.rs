//! A libFuzzer-style Rust target: an INI parser with typed values.
//!
//! The input is INI text: `[section]` headers, `key = value` lines and
//! `;` or `#` comments. A value is an integer, a boolean, a list
//! (`a, b, c`) or a ratio (`3/4`). Text the parser rejects is an invalid
//! input (a non-zero return); a panic is a crash.
//!
//! The planted bug: a ratio whose denominator is 0 divides by zero, but
//! only under `[scale]`, where ratios are reduced.

use std::collections::BTreeMap;

#[derive(Debug)]
enum Value {
    Int(i64),
    Bool(bool),
    List(Vec<String>),
    Ratio(i64, i64),
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

fn parse_value(section: &str, v: &str) -> Result<Value, String> {
    match v {
        "true" | "yes" | "on" => return Ok(Value::Bool(true)),
        "false" | "no" | "off" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Some((n, d)) = v.split_once('/') {
        let n: i64 = n.trim().parse().map_err(|_| format!("bad numerator {n:?}"))?;
        let d: i64 = d.trim().parse().map_err(|_| format!("bad denominator {d:?}"))?;
        if section == "scale" {
            let g = gcd(n, d).max(1);
            // The bug: d == 0 reaches the division.
            return Ok(Value::Ratio(n / g, d / g * (n / d).signum().max(1)));
        }
        if d == 0 {
            return Err("zero denominator".into());
        }
        return Ok(Value::Ratio(n, d));
    }
    if v.contains(',') {
        return Ok(Value::List(v.split(',').map(|s| s.trim().to_string()).collect()));
    }
    v.parse::<i64>().map(Value::Int).map_err(|_| format!("bad value {v:?}"))
}

fn parse(text: &str) -> Result<BTreeMap<String, BTreeMap<String, Value>>, String> {
    let mut out: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    let mut section = String::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or(format!("line {}: unclosed section", i + 1))?;
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
                return Err(format!("line {}: bad section name", i + 1));
            }
            section = name.to_string();
            continue;
        }
        let (k, v) = line.split_once('=').ok_or(format!("line {}: expected key = value", i + 1))?;
        let v = parse_value(&section, v.trim())?;
        out.entry(section.clone()).or_default().insert(k.trim().to_string(), v);
    }
    Ok(out)
}

#[no_mangle]
pub extern "C" fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> i32 {
    let data = unsafe { std::slice::from_raw_parts(data, size) };
    let text = match std::str::from_utf8(data) {
        Ok(t) => t,
        Err(_) => return -1,
    };
    match parse(text) {
        Ok(_) => 0,
        Err(_) => -1,
    }
}
