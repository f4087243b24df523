//! Trace lines, as `rdmaverbs(7)` describes them: `rdmaverbs[TID]: NAME
//! t=SECONDS.NANOSECONDS key=value ...`, split on runs of spaces, fields
//! looked up by name; any other line (padding, a program's own output) is
//! not one.

/// One trace line.
#[derive(Debug, PartialEq)]
pub struct Line<'a> {
    pub tid: u32,
    pub name: &'a str,
    /// `t=`, in nanoseconds.
    pub t_ns: u64,
    fields: Vec<(&'a str, &'a str)>,
}

impl<'a> Line<'a> {
    /// The line `text`, if it is a trace line with a time.
    pub fn parse(text: &'a str) -> Option<Line<'a>> {
        let rest = text.strip_prefix("rdmaverbs[")?;
        let (tid, rest) = rest.split_once("]: ")?;
        let tid = tid.parse().ok()?;
        let mut words = rest.split_ascii_whitespace();
        let name = words.next()?;
        let mut fields = Vec::new();
        for w in words {
            fields.push(w.split_once('=')?);
        }
        let t = fields.iter().find(|(k, _)| *k == "t")?.1;
        let (s, ns) = t.split_once('.')?;
        if ns.len() != 9 {
            return None;
        }
        let t_ns = s
            .parse::<u64>()
            .ok()?
            .checked_mul(1_000_000_000)?
            .checked_add(ns.parse().ok()?)?;
        Some(Line {
            tid,
            name,
            t_ns,
            fields,
        })
    }

    /// A field's value.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// A decimal field.
    pub fn num(&self, key: &str) -> Option<i64> {
        self.get(key)?.parse().ok()
    }

    /// A hexadecimal (`0x...`) field.
    pub fn hex(&self, key: &str) -> Option<u64> {
        u64::from_str_radix(self.get(key)?.strip_prefix("0x")?, 16).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_and_not_lines() {
        let l = Line::parse(
            "rdmaverbs[812]: rdma_post_send t=5012.042335101    id=0x55d0 qpn=17 wr_id=0x1f ret=0",
        )
        .unwrap();
        assert_eq!(
            (l.tid, l.name, l.t_ns),
            (812, "rdma_post_send", 5_012_042_335_101)
        );
        assert_eq!(
            (l.num("qpn"), l.hex("wr_id"), l.num("ret")),
            (Some(17), Some(0x1f), Some(0))
        );
        assert_eq!(l.get("nothing"), None);
        for bad in [
            "",
            "                    ",
            "hello",
            "rdmaverbs: calls of process 12 (RDMAVERBS_STATS=1):",
            "rdmaverbs[1]: f t=1.5 x=1",
            "rdmaverbs[1]: f x=1",
            "rdmaverbs[x]: f t=1.000000000",
        ] {
            assert_eq!(Line::parse(bad), None, "{bad}");
        }
    }
}
