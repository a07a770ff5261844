// Shared by build.rs and src/schema.rs (with `include!`): the packing of the
// embedded schema definitions in the command (native and WASI), where the
// module is judged by its raw bytes and the definitions were 23 KB of the
// WASI module's 186 KB. (The browser build embeds them as text: it is judged
// gzipped, and gzip packs them better than this does.)
//
// The format is LZ77 at its plainest, a byte at a time, so that unpacking is
// a few dozen bytes of code: a byte below 0x80 is a run of that many plus one
// literal bytes, which follow; a byte from 0x80 is a copy of (its low seven
// bits + 3) bytes from (the next two bytes, little-endian) bytes back.

/// The text `pack` packed (build.rs checks the round trip of what it embeds).
#[allow(dead_code)] // not in the browser build, which embeds the text as it is
fn unpack(packed: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(packed.len() * 4);
    let mut at = 0;
    while let Some(&head) = packed.get(at) {
        let head = usize::from(head);
        if head < 0x80 {
            out.extend_from_slice(packed.get(at + 1..at + 2 + head).unwrap_or_default());
            at += 2 + head;
        } else {
            let back = packed.get(at + 1..at + 3).map_or(0, |b| usize::from(b[0]) | usize::from(b[1]) << 8);
            for _ in 0..(head & 0x7f) + 3 {
                // A distance that reaches before the start (never written by
                // `pack`) ends the text there.
                let Some(&byte) = out.len().checked_sub(back).and_then(|from| out.get(from)) else { break };
                out.push(byte);
            }
            at += 3;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Packs `text` greedily, with one step of lazy matching: at each position,
/// the longest earlier copy (of at least 3 bytes, within 65,535 bytes back),
/// unless the next position has a longer one.
#[allow(dead_code)] // build.rs's
fn pack(text: &[u8]) -> Vec<u8> {
    const MIN: usize = 3;
    const MAX: usize = 0x7f + MIN;
    const WINDOW: usize = 0xffff;
    // Earlier positions by their first three bytes, newest last.
    let mut seen: std::collections::HashMap<[u8; 3], Vec<usize>> = std::collections::HashMap::new();
    let longest = |seen: &std::collections::HashMap<[u8; 3], Vec<usize>>, at: usize| -> (usize, usize) {
        let Some(key) = text.get(at..at + MIN) else { return (0, 0) };
        let mut best = (0, 0);
        // The 256 nearest candidates: enough for these texts, and quick.
        for &from in seen.get(&[key[0], key[1], key[2]]).into_iter().flatten().rev().take(256) {
            if at - from > WINDOW {
                break;
            }
            let length = (0..MAX.min(text.len() - at)).take_while(|&k| text[from + k] == text[at + k]).count();
            if length > best.0 {
                best = (length, at - from);
            }
        }
        best
    };
    let mut out = Vec::new();
    let mut literals: Vec<u8> = Vec::new();
    let flush = |out: &mut Vec<u8>, literals: &mut Vec<u8>| {
        for run in literals.chunks(0x80) {
            out.push((run.len() - 1) as u8);
            out.extend_from_slice(run);
        }
        literals.clear();
    };
    let mut at = 0;
    while at < text.len() {
        let (length, back) = longest(&seen, at);
        let take = length >= MIN && longest(&seen, at + 1).0 <= length;
        let step = if take { length } else { 1 };
        if take {
            flush(&mut out, &mut literals);
            out.push(0x80 | (length - MIN) as u8);
            out.extend_from_slice(&(back as u16).to_le_bytes());
        } else {
            literals.push(text[at]);
        }
        for position in at..at + step {
            if let Some(key) = text.get(position..position + MIN) {
                seen.entry([key[0], key[1], key[2]]).or_default().push(position);
            }
        }
        at += step;
    }
    flush(&mut out, &mut literals);
    out
}
