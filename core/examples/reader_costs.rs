//! Prints the seconds each header and configuration reader takes at the
//! largest input a caller can hand over, one run each (the `readers`
//! benchmark measures the same inputs with criterion):
//! `cargo run --release -p retryplan --example reader_costs`.

#[path = "../benches/support/reader_inputs.rs"]
mod reader_inputs;

// A timing example measures wall time by design; the library itself never reads a clock.
#[allow(clippy::disallowed_methods)]
fn main() {
    for (name, read) in reader_inputs::readers() {
        let start = std::time::Instant::now();
        let accepted = read();
        println!("{:>9.3} s  {name} (accepted: {accepted})", start.elapsed().as_secs_f64());
    }
}
