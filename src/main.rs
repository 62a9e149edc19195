/// mimalloc: grounding allocates and frees many small vectors, which it serves faster than
/// the system allocator (see the crate list in CONTRIBUTING.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Run on a thread with a large stack: deeply nested formulas and Lua recursion need it.
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(idp::cli::run)
        .expect("could not start the main thread");
    let code = handle.join().unwrap_or(101);
    std::process::exit(code);
}
