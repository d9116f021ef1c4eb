//! Truncation of binary min/max statistics, as every supported `parquet`
//! release truncates them (chunk statistics, page header statistics and
//! column index entries alike; only the limit differs).
//!
//! A value no longer than the limit is kept whole. Otherwise:
//!
//! * a minimum becomes a prefix: for a UTF-8 column whose value is valid
//!   UTF-8, the longest non-empty prefix of at most `limit` bytes that ends
//!   on a character boundary (kept whole if there is none); else the first
//!   `limit` bytes;
//! * a maximum becomes a prefix that is then made larger than the value:
//!   for valid UTF-8 in a UTF-8 column, the prefix ends on the last
//!   character boundary among the last four positions up to `limit`, and its
//!   last character that can be incremented without changing its encoded
//!   length is (the characters after it dropped); else the first `limit`
//!   bytes are incremented as a big-endian number, a 0xFF byte carrying into
//!   the one before it. When nothing can be incremented (an empty prefix,
//!   all 0xFF, only characters at the end of their length class) the whole
//!   value is kept.
//!
//! The flag returned says whether the value was truncated (the statistics'
//! `is_*_value_exact` is its negation).

/// `value` truncated as a minimum statistic to `limit` bytes; true if it was.
pub(crate) fn truncate_min(value: &[u8], limit: Option<usize>, utf8: bool) -> (Vec<u8>, bool) {
    let cut = match limit {
        Some(l) if value.len() > l => match utf8_text(value, utf8) {
            Some(text) => (1..=l)
                .rev()
                .find(|&x| text.is_char_boundary(x))
                .map(|x| &value[..x]),
            None => Some(&value[..l]),
        },
        _ => None,
    };
    match cut {
        Some(prefix) => (prefix.to_vec(), true),
        None => (value.to_vec(), false),
    }
}

/// `value` truncated as a maximum statistic to `limit` bytes and made an
/// upper bound again; true if it was.
pub(crate) fn truncate_max(value: &[u8], limit: Option<usize>, utf8: bool) -> (Vec<u8>, bool) {
    let cut = match limit {
        Some(l) if value.len() > l => match utf8_text(value, utf8) {
            Some(text) => (l.saturating_sub(3)..=l)
                .rev()
                .find(|&x| text.is_char_boundary(x))
                .and_then(|x| increment_text(&text[..x])),
            None => increment_bytes(&value[..l]),
        },
        _ => None,
    };
    match cut {
        Some(bound) => (bound, true),
        None => (value.to_vec(), false),
    }
}

/// `value` as text, if the column is UTF-8 and the value is valid UTF-8.
fn utf8_text(value: &[u8], utf8: bool) -> Option<&str> {
    if utf8 {
        std::str::from_utf8(value).ok()
    } else {
        None
    }
}

/// The shortest-change larger string with `text`'s start: its last character
/// whose successor is a character of the same encoded length replaced by it,
/// the characters after it dropped.
fn increment_text(text: &str) -> Option<Vec<u8>> {
    text.char_indices().rev().find_map(|(at, c)| {
        let next = char::from_u32(c as u32 + 1).filter(|n| n.len_utf8() == c.len_utf8())?;
        let mut out = text.as_bytes()[..at].to_vec();
        let mut buf = [0u8; 4];
        out.extend_from_slice(next.encode_utf8(&mut buf).as_bytes());
        Some(out)
    })
}

/// `prefix` plus one, as a big-endian number of its own length; None when
/// every byte is 0xFF.
fn increment_bytes(prefix: &[u8]) -> Option<Vec<u8>> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut out = prefix.to_vec();
    out[last] += 1;
    out[last + 1..].fill(0);
    Some(out)
}

#[cfg(test)]
mod tests;
