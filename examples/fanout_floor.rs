//! The least a delivery to a watcher can cost on this machine, with no service in the way.
//!
//! `cargo run --release --example fanout_floor -- [--streams N] [--frames F] [--bytes B]`
//!
//! One thread writes a frame of B bytes (an entry's SSE frame is about 400) to each of N
//! loopback TCP connections in turn, F times; another reads each frame back from each in the
//! same order. That is the one `write` and one `read` system call per delivery that any server
//! and any watcher pay, and nothing else: no HTTP, no task woken, no JSON. It prints the CPU
//! time both threads used (the kernel's TCP work on both sides included, from
//! `/proc/thread-self/schedstat`) per delivery, and what a move watched by W watchers costs at
//! that price: the floor under `scripts/bench-live`'s subscribers, which share the machine's
//! cores with the scorers they watch.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Nanoseconds this thread has run on a CPU, in user space and in the kernel.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

fn main() -> std::io::Result<()> {
    let streams = arg("--streams", 625);
    let frames = arg("--frames", 2_000);
    let bytes = arg("--bytes", 400).max(1);

    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let mut readers = Vec::with_capacity(streams);
    let mut writers = Vec::with_capacity(streams);
    for _ in 0..streams {
        let reader = TcpStream::connect(addr)?;
        let (writer, _) = listener.accept()?;
        reader.set_nodelay(true)?;
        writer.set_nodelay(true)?;
        readers.push(reader);
        writers.push(writer);
    }

    let started = Instant::now();
    let write = std::thread::spawn(move || -> std::io::Result<u64> {
        let frame = vec![b'x'; bytes];
        let before = thread_cpu_ns();
        for _ in 0..frames {
            for stream in &mut writers {
                stream.write_all(&frame)?;
            }
        }
        Ok(thread_cpu_ns() - before)
    });
    let read = std::thread::spawn(move || -> std::io::Result<u64> {
        let mut frame = vec![0u8; bytes];
        let before = thread_cpu_ns();
        for _ in 0..frames {
            for stream in &mut readers {
                stream.read_exact(&mut frame)?;
            }
        }
        Ok(thread_cpu_ns() - before)
    });
    let written = write
        .join()
        .map_err(|_| std::io::Error::other("the writer panicked"))??;
    let read = read
        .join()
        .map_err(|_| std::io::Error::other("the reader panicked"))??;
    let elapsed = started.elapsed().as_secs_f64();

    let deliveries = (streams * frames) as f64;
    let per_delivery_us = (written + read) as f64 / 1_000.0 / deliveries;
    println!("streams: {streams}, frames: {frames} of {bytes} bytes each");
    println!(
        "deliveries: {deliveries:.0} in {elapsed:.2} s = {:.0} a second",
        deliveries / elapsed
    );
    println!(
        "CPU per delivery: {per_delivery_us:.2} µs (writer {:.2}, reader {:.2})",
        written as f64 / 1_000.0 / deliveries,
        read as f64 / 1_000.0 / deliveries
    );
    println!(
        "a move watched by {streams}: {:.2} ms of CPU, so at most {:.0} such moves a second per core",
        per_delivery_us * streams as f64 / 1_000.0,
        1_000_000.0 / (per_delivery_us * streams as f64)
    );
    Ok(())
}
