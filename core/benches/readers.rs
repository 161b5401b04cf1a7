//! Criterion benchmarks of every header and configuration reader at the
//! largest input a caller can hand over: a 1 MiB header value (Go net/http's
//! `DefaultMaxHeaderBytes`, above what Node, urllib3 or OkHttp accept) and a
//! 4 MB configuration or error body. Each reader is linear or n log n in its
//! input, so each figure stays in milliseconds; a quadratic reader took
//! seconds to a minute here (issue 29). `cargo run --release --example
//! reader_costs` prints the same inputs' costs in seconds, once each.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "support/reader_inputs.rs"]
mod reader_inputs;

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("largest_input");
    group.sample_size(10);
    for (name, read) in reader_inputs::readers() {
        group.bench_function(name, |b| b.iter(|| black_box(read())));
    }
    group.finish();
}

criterion_group!(readers, benches);
criterion_main!(readers);
