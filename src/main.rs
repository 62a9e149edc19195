/// mimalloc: grounding allocates and frees many small vectors, which it serves faster than
/// the system allocator (see the crate list in CONTRIBUTING.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // The command line runs on a thread of its own with a large stack (`cli::run`).
    std::process::exit(idp::cli::run());
}
