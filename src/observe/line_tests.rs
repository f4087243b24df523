//! Every piece of a line, at every length near the end of its room: the
//! line is what it would have been, cut to `MAX - 1` bytes, and a newline
//! (a time's nanoseconds, which are nine digits or nothing, whole or not
//! at all).

use super::*;

/// What `piece` appends, and whether it is whole or nothing.
fn piece(k: usize, l: &mut Line) -> (Vec<u8>, bool) {
    match k {
        0 => {
            l.push(b"0123456789abcdefghij");
            (b"0123456789abcdefghij".to_vec(), false)
        }
        1 => {
            l.dec(b" k=", -1_234_567);
            (b" k=-1234567".to_vec(), false)
        }
        2 => {
            l.dec(b" n=", 98_765_432_101);
            (b" n=98765432101".to_vec(), false)
        }
        3 => {
            l.hex(b" h=", 0xabc_def0_1234);
            (b" h=0xabcdef01234".to_vec(), false)
        }
        4 => {
            let mut chunk = [b'z'; 32];
            chunk[..5].copy_from_slice(b"fixed");
            l.fixed(&chunk, 20);
            (chunk[..20].to_vec(), false)
        }
        _ => {
            l.nanoseconds(1_234);
            (b"000001234".to_vec(), true)
        }
    }
}

#[test]
fn each_piece_cut_at_each_length() {
    for len in MAX - 64..MAX {
        for k in 0..6 {
            let mut r = room();
            let mut l = Line::on(&mut r);
            let before = vec![b'.'; len];
            l.push(&before);
            let (text, whole) = piece(k, &mut l);
            let mut want = before.clone();
            want.truncate(MAX - 1);
            if !whole || want.len() + text.len() < MAX {
                want.extend_from_slice(&text);
            }
            want.truncate(MAX - 1);
            want.push(b'\n');
            assert_eq!(l.finish(), &want[..], "piece {k} after {len} bytes");
        }
    }
}
