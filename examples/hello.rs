//! The WASI start-up floor for the benchmark table: a module that prints one line.
fn main() {
    println!("hello");
}
