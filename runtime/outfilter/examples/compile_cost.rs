use std::time::Instant;
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    for limit in [Some(1usize << 20), None] {
        let mut c = hookdex_outfilter::Compiler::new();
        c.dfa_size_limit(limit);
        let t = Instant::now();
        let mut bytes = 0;
        let mut claim_bytes = 0;
        let mut files = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let f = c.parse(&text).into_result().unwrap();
            for x in &f.filters {
                bytes += x.to_bytes().len();
                claim_bytes += x.claim().to_bytes().len();
            }
            files.push(f);
        }
        let compile = t.elapsed();
        if limit.is_some() {
            for f in &files {
                for x in &f.filters {
                    let b = x.claim().to_bytes();
                    let t = Instant::now();
                    hookdex_outfilter::Claim::from_bytes(&b).unwrap();
                    println!(
                        "  {:<16} claim {:>7} bytes, loads in {:?}",
                        x.name(),
                        b.len(),
                        t.elapsed()
                    );
                }
            }
        }
        let all: Vec<Vec<u8>> = files
            .iter()
            .flat_map(|f| f.filters.iter().map(|x| x.to_bytes()))
            .collect();
        let claims: Vec<Vec<u8>> = files
            .iter()
            .flat_map(|f| f.filters.iter().map(|x| x.claim().to_bytes()))
            .collect();
        let t = Instant::now();
        for b in &claims {
            hookdex_outfilter::Claim::from_bytes(b).unwrap();
        }
        let lc = t.elapsed();
        let t = Instant::now();
        for b in &all {
            hookdex_outfilter::Filter::from_bytes(b).unwrap();
        }
        let lb = t.elapsed();
        // Throughput of the pipeline alone, over each file's test inputs repeated to 10 MB.
        for f in &files {
            for x in f.filters.iter().filter(|x| {
                [
                    "make",
                    "cargo-build",
                    "pytest",
                    "terraform-plan",
                    "npm-install",
                ]
                .contains(&x.name())
            }) {
                let block: String = f
                    .tests
                    .iter()
                    .filter(|t| t.filter == x.name())
                    .map(|t| format!("{}\n", t.input))
                    .collect();
                if block.is_empty() {
                    continue;
                }
                let big = block.repeat(10_000_000 / block.len() + 1);
                let t = Instant::now();
                let out = hookdex_outfilter::apply(x, &big);
                let secs = t.elapsed().as_secs_f64();
                println!(
                    "  {:<16} apply {:.0} MB/s ({} -> {} bytes)",
                    x.name(),
                    big.len() as f64 / secs / 1e6,
                    big.len(),
                    out.text.len()
                );
            }
        }
        println!("limit {limit:?}: compile {compile:?}, bytes {bytes}, claims {claim_bytes}, load all claims {lc:?}, load all bodies {lb:?} ({} filters)", all.len());
    }
}
