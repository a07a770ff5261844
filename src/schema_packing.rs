// Shared by build.rs and src/schema.rs (with `include!`): the packing of the
// embedded schema definitions in the command (native and WASI), where the
// module is judged by its raw bytes and the definitions were 23 KB of the
// WASI module's 186 KB. (The browser build embeds them as text: it is judged
// gzipped, and gzip packs them better than this does.)
//
// The format is LZ77 at its plainest, a byte at a time, so that unpacking is
// a few dozen bytes of code. A head byte below 0x80 is a run of that many
// plus one literal bytes, which follow; from 0x80, a copy of (its low six
// bits + 3) bytes from some bytes back: one byte says how many (1 to 255)
// when the head is below 0xc0, two bytes (little-endian) from 0xc0.

/// The text [`pack`] packed (build.rs checks the round trip of what it embeds).
#[allow(dead_code)] // not in the browser build, which embeds the text as it is
fn unpack(packed: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(packed.len() * 4);
    let mut at = 0;
    while let Some(&head) = packed.get(at) {
        let head = usize::from(head);
        if head < 0x80 {
            out.extend_from_slice(packed.get(at + 1..at + 2 + head).unwrap_or_default());
            at += 2 + head;
            continue;
        }
        let far = head >= 0xc0;
        let back = match packed.get(at + 1..at + 2 + usize::from(far)) {
            Some(&[low]) => usize::from(low),
            Some(&[low, high]) => usize::from(low) | usize::from(high) << 8,
            _ => 0,
        };
        for _ in 0..(head & 0x3f) + 3 {
            // A distance that reaches before the start (never written by
            // `pack`) ends the text there.
            let Some(&byte) = out.len().checked_sub(back).and_then(|from| out.get(from)) else { break };
            out.push(byte);
        }
        at += 2 + usize::from(far);
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Packs `text` as tightly as this format allows for the copies it finds: at
/// each position the longest earlier copy (of 3 to 66 bytes, within 65,535
/// bytes back, among the 256 nearest candidates) and the longest within 255
/// bytes back, then the cheapest sequence of literal runs and copies (any
/// prefix of a copy is one) by dynamic programming from the end.
#[allow(dead_code)] // build.rs's
fn pack(text: &[u8]) -> Vec<u8> {
    const MIN: usize = 3;
    const MAX: usize = 0x3f + MIN;
    let n = text.len();
    // At each position: the longest copy from anywhere, and from near; each
    // (length, distance back).
    let mut far = vec![(0usize, 0usize); n];
    let mut near = vec![(0usize, 0usize); n];
    let mut seen: std::collections::HashMap<[u8; 3], Vec<usize>> = std::collections::HashMap::new();
    for at in 0..n {
        let Some(key) = text.get(at..at + MIN) else { continue };
        let key = [key[0], key[1], key[2]];
        for &from in seen.get(&key).into_iter().flatten().rev().take(256) {
            let back = at - from;
            if back > 0xffff {
                break;
            }
            let length = (0..MAX.min(n - at)).take_while(|&k| text[from + k] == text[at + k]).count();
            if length > far[at].0 {
                far[at] = (length, back);
            }
            if back <= 0xff && length > near[at].0 {
                near[at] = (length, back);
            }
        }
        seen.entry(key).or_default().push(at);
    }
    // The bytes to write text[i..] starting afresh, and inside a literal run
    // whose head byte is written (a run's limit of 128 bytes is left to the
    // writer: one more head byte per 128), and the cheapest first step afresh
    // (0: a literal; else the copy's length and whether it is near).
    let mut fresh = vec![0usize; n + 1];
    let mut in_run = vec![0usize; n + 1];
    let mut step = vec![(0usize, false); n];
    for i in (0..n).rev() {
        let mut best = (usize::MAX, 0, false);
        for (cost, (longest, _), is_near) in [(2, near[i], true), (3, far[i], false)] {
            for length in MIN..=longest {
                if cost + fresh[i + length] < best.0 {
                    best = (cost + fresh[i + length], length, is_near);
                }
            }
        }
        let literal = 1 + in_run[i + 1];
        in_run[i] = literal.min(best.0);
        fresh[i] = (1 + literal).min(best.0);
        step[i] = if best.0 < 1 + literal { (best.1, best.2) } else { (0, false) };
    }
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
    while at < n {
        let (length, is_near) = step[at];
        let cost = if is_near { 2 } else { 3 };
        // Inside a run, a copy pays only where it beats continuing the run.
        if length >= MIN && (literals.is_empty() || cost + fresh[at + length] <= 1 + in_run[at + 1]) {
            flush(&mut out, &mut literals);
            if is_near {
                out.extend_from_slice(&[0x80 | (length - MIN) as u8, near[at].1 as u8]);
            } else {
                out.push(0xc0 | (length - MIN) as u8);
                out.extend_from_slice(&(far[at].1 as u16).to_le_bytes());
            }
            at += length;
        } else {
            literals.push(text[at]);
            at += 1;
        }
    }
    flush(&mut out, &mut literals);
    out
}
