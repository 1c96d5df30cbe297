//! Every generator's output compiled (or validated) with the language's real toolchain and run on random and
//! edge indices, each result compared with the reference algebra (`lego-algebra`).
//!
//! Corpus: docs/reference/semantics.md's worked examples (row, col, Fig. 2, Fig. 6 and its parts, the tiled 8×12, partial
//! tiles), paper Fig. 1's tiled matmul, a row with symbolic sizes, a Morton-order gen_p (lowered to the bit
//! spread by strength reduction), seeded random layouts, and the `math` bit counts (checked against Rust's). Each layout gives `apply_NAME(indices…, sizes…)`
//! and, when invertible, `apply_inverse_NAME(flat, sizes…)`, translated by the `lego-translate` binary
//! (lego-lower included).
//!
//! The 64-bit languages also run a second, already-lowered corpus of signed ops over the whole 64-bit range.
//! Every language also translates a third with `--assert-bounds` (an XOR swizzle whose lowering relies on its
//! domain, its inverse, a symbolic row's inverse): in the domain the results agree, and each language that
//! runs here stops on a call outside it, naming the bound; GLSL and WGSL validate it.
//!
//! Run: C (cc), C++ (c++), CUDA C as host C++ (c++; and clang-22's CUDA device-only compile), Rust (rustc),
//! Fortran (gfortran), JavaScript (node), Python (python3). Validated only, no GPU here: GLSL
//! (glslangValidator), WGSL (naga). Julia has no Debian 12 package: test/translate/julia-golden.test checks its
//! output against a golden file instead. A missing toolchain fails the test (`make setup` installs them).

use lego_algebra::{
    examples,
    random::{random_flat, random_index, random_layout, RandomConfig, SplitMix64},
    Dim, GenFn, Layout, NO_ELEMENT,
};
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{Arc, OnceLock},
};

/// One translated function and the queries it is run on, with the expected results.
struct Function {
    name: String,
    params: usize,
    results: usize,
    queries: Vec<(Vec<u64>, Vec<u64>)>,
}

struct Corpus {
    mlir: String,
    functions: Vec<Function>,
    /// Already plain arith: translated with `--no-lower` as it is.
    prelowered: bool,
    /// Extra lego-translate flags; a corpus with flags is translated from its source, lego-lower included
    /// (the domain comes from the layouts), not from the shared lowered corpus.
    flags: &'static [&'static str],
}

/// The Morton (Z-order) map of an n×n array, n = 2^bits: bit k of i goes to bit 2k+1, bit k of j to bit 2k.
fn morton_apply(bits: u32, i: u64, j: u64) -> u64 {
    (0..bits).map(|k| ((i >> k) & 1) << (2 * k + 1) | ((j >> k) & 1) << (2 * k)).sum()
}

fn morton_inverse(bits: u32, x: u64) -> (u64, u64) {
    let i = (0..bits).map(|k| ((x >> (2 * k + 1)) & 1) << k).sum();
    let j = (0..bits).map(|k| ((x >> (2 * k)) & 1) << k).sum();
    (i, j)
}

/// The Morton gen_p written as a user would, with `divui`/`remui`/`muli` by powers of two.
fn morton_mlir(bits: u32) -> String {
    let n = 1u64 << bits;
    let mut apply = String::new();
    let mut terms = Vec::new();
    for k in 0..bits {
        for (var, offset) in [("a", 1), ("b", 0)] {
            let _ = writeln!(apply, "      %{var}s{k} = arith.divui %{var}, %p{k} : index");
            let _ = writeln!(apply, "      %{var}b{k} = arith.remui %{var}s{k}, %p1 : index");
            let _ = writeln!(apply, "      %{var}t{k} = arith.muli %{var}b{k}, %p{} : index", 2 * k + offset);
            terms.push(format!("%{var}t{k}"));
        }
    }
    let mut sum = terms[0].clone();
    for (index, term) in terms.iter().enumerate().skip(1) {
        let _ = writeln!(apply, "      %sum{index} = arith.addi {sum}, {term} : index");
        sum = format!("%sum{index}");
    }
    let mut inverse = String::new();
    let mut results = Vec::new();
    for (var, offset) in [("i", 1), ("j", 0)] {
        let mut acc = String::new();
        for k in 0..bits {
            let _ = writeln!(inverse, "      %{var}s{k} = arith.divui %x, %p{} : index", 2 * k + offset);
            let _ = writeln!(inverse, "      %{var}b{k} = arith.remui %{var}s{k}, %p1 : index");
            let _ = writeln!(inverse, "      %{var}t{k} = arith.muli %{var}b{k}, %p{k} : index");
            if k == 0 {
                acc = format!("%{var}t0");
            } else {
                let _ = writeln!(inverse, "      %{var}acc{k} = arith.addi {acc}, %{var}t{k} : index");
                acc = format!("%{var}acc{k}");
            }
        }
        results.push(acc);
    }
    let constants = |indent: &str| {
        (0..2 * bits).map(|k| format!("{indent}%p{k} = arith.constant {} : index\n", 1u64 << k)).collect::<String>()
    };
    format!(
        "  func.func @apply_morton(%i: index, %j: index) -> index {{\n    %l = lego.gen_p [{n}, {n}] apply (%a: index, %b: index) {{\n{}{apply}      lego.yield {sum} : index\n    }} inv (%x: index) {{\n{}{inverse}      lego.yield {}, {} : index, index\n    }} : !lego.layout\n    %r = lego.apply %l(%i, %j) : !lego.layout\n    return %r : index\n  }}\n  func.func @apply_inverse_morton(%f: index) -> (index, index) {{\n    %l = lego.gen_p [{n}, {n}] apply (%a: index, %b: index) {{\n{}{apply}      lego.yield {sum} : index\n    }} inv (%x: index) {{\n{}{inverse}      lego.yield {}, {} : index, index\n    }} : !lego.layout\n    %r0, %r1 = lego.apply_inverse %l(%f) : !lego.layout -> index, index\n    return %r0, %r1 : index, index\n  }}\n",
        constants("      "),
        constants("      "),
        results[0],
        results[1],
        constants("      "),
        constants("      "),
        results[0],
        results[1],
    )
}

/// Every logical index of small layouts; edges and random ones of larger ones.
fn apply_queries(layout: &Layout, rng: &mut SplitMix64) -> Vec<Vec<u64>> {
    let dims = layout.dims().to_vec();
    let numel = layout.numel();
    if numel <= 300 {
        return (0..numel).map(|flat| lego_algebra::mixed_radix_unflatten(&dims, flat)).collect();
    }
    let mut queries = vec![vec![0; dims.len()], dims.iter().map(|d| d - 1).collect()];
    for k in 0..dims.len() {
        let mut edge = vec![0; dims.len()];
        edge[k] = dims[k] - 1;
        queries.push(edge);
    }
    queries.extend((0..120).map(|_| random_index(layout, rng)));
    queries
}

fn inverse_queries(layout: &Layout, rng: &mut SplitMix64) -> Vec<u64> {
    let size = layout.codomain_size();
    if size <= 300 {
        return (0..size).collect();
    }
    let mut queries = vec![0, size - 1, size / 2];
    queries.extend((0..120).map(|_| random_flat(layout, rng)));
    queries
}

fn add_layout(corpus: &mut Corpus, name: &str, layout: &Layout, rng: &mut SplitMix64) {
    let module = lego_algebra::mlir::emit_module(layout, name).expect("the corpus layouts emit as MLIR");
    // Keep the functions, drop the `module {` wrapper: the corpus is one module.
    let body: Vec<&str> = module.lines().collect();
    for line in &body[1..body.len() - 1] {
        corpus.mlir.push_str(line);
        corpus.mlir.push('\n');
    }
    let sizes = layout.symbolic_sizes();
    let queries = apply_queries(layout, rng)
        .into_iter()
        .map(|index| {
            let expected = layout.apply(&index).expect("in-range index");
            let mut arguments = index;
            arguments.extend(&sizes);
            (arguments, vec![expected])
        })
        .collect();
    corpus.functions.push(Function { name: format!("apply_{name}"), params: layout.rank() + sizes.len(), results: 1, queries });
    if layout.is_invertible() {
        let queries = inverse_queries(layout, rng)
            .into_iter()
            .map(|flat| {
                let expected = layout.apply_inverse(flat).expect("in-range flat index");
                let mut arguments = vec![flat];
                arguments.extend(&sizes);
                (arguments, expected)
            })
            .collect();
        corpus.functions.push(Function {
            name: format!("apply_inverse_{name}"),
            params: 1 + sizes.len(),
            results: layout.rank(),
            queries,
        });
    }
}

fn corpus() -> Corpus {
    let mut rng = SplitMix64::new(0x7a4e_5a7e);
    let mut corpus = Corpus { mlir: String::from("module {\n"), functions: Vec::new(), prelowered: false, flags: &[] };
    for (name, layout) in examples::all() {
        add_layout(&mut corpus, name, &layout, &mut rng);
    }
    let matmul = examples::fig1_tiled(64, 48, 16, 8).expect("Fig. 1 tiling");
    add_layout(&mut corpus, "matmul_tiled", &matmul, &mut rng);
    let symbolic_row = Layout::row([Dim::sym(37), Dim::lit(5), Dim::sym(11)]).expect("row");
    add_layout(&mut corpus, "symbolic_row", &symbolic_row, &mut rng);
    let config = RandomConfig { max_numel: 4096, max_depth: 3, symbolic_percent: 25, allow_expand_by: true, only_tile_by: false, new_ops_percent: 0 };
    for k in 0..16 {
        let layout = random_layout(&mut rng, &config);
        add_layout(&mut corpus, &format!("random{k}"), &layout, &mut rng);
    }
    // Morton order of a 16×16 array; the reference is the algebra's gen_p over the same map.
    let bits = 4;
    corpus.mlir.push_str(&morton_mlir(bits));
    let inverse: lego_algebra::InverseFn = Arc::new(move |x| {
        let (i, j) = morton_inverse(bits, x);
        vec![i, j]
    });
    let morton = Layout::gen_p([16u64, 16], GenFn::custom("morton", move |index| morton_apply(bits, index[0], index[1]), Some(inverse)))
        .expect("morton gen_p");
    let queries = apply_queries(&morton, &mut rng).into_iter().map(|index| (index.clone(), vec![morton.apply(&index).unwrap()])).collect();
    corpus.functions.push(Function { name: "apply_morton".into(), params: 2, results: 1, queries });
    let queries = inverse_queries(&morton, &mut rng).into_iter().map(|x| (vec![x], morton.apply_inverse(x).unwrap())).collect();
    corpus.functions.push(Function { name: "apply_inverse_morton".into(), params: 1, results: 2, queries });
    // math bit counts (allowed in gen_p bodies); the reference is Rust's own count of the 64-bit value.
    corpus.mlir.push_str(
        "  func.func @bit_counts(%x: index) -> (index, index, index) {\n    %a = math.ctlz %x : index\n    %b = math.cttz %x : index\n    %c = math.ctpop %x : index\n    return %a, %b, %c : index, index, index\n  }\n",
    );
    let mut values = vec![0u64, 1, 2, 3, 255, 256, 1 << 31, (1 << 32) - 1];
    values.extend((0..40).map(|_| rng.below(1 << 32) >> rng.below(32)));
    let queries = values
        .into_iter()
        .map(|x| (vec![x], vec![u64::from(x.leading_zeros()), u64::from(x.trailing_zeros()), u64::from(x.count_ones())]))
        .collect();
    corpus.functions.push(Function { name: "bit_counts".into(), params: 1, results: 3, queries });
    // lego.swizzle (docs/ops/swizzle.md): alone, several dims with a symbolic size, in a group_by chain.
    let swizzles = [
        ("swizzle_343", Layout::swizzle(3, 4, 3, [2048u64])),
        ("swizzle_2d", Layout::swizzle(2, 1, 3, [Dim::sym(12), Dim::lit(64)])),
        ("swizzle_group", Layout::swizzle(3, 2, 3, [1024u64]).and_then(|s| Layout::group_by([32u64, 32], [s]))),
        // lego.compose / lego.inverse / lego.strided (docs/ops/): a composition of ranks 2 and 1, an inverse,
        // a hierarchical compact strided and a padded (apply-only) one.
        ("compose", Layout::compose(examples::rev(3, 4).unwrap(), Layout::col([12u64]).unwrap())),
        ("inverse", Layout::inverse(examples::fig2())),
        ("strided", Layout::strided(vec![vec![(4, 1), (2, 32)], vec![(8, 4)]])),
        ("strided_padded", Layout::strided(vec![vec![(4, 9)], vec![(8, 1)]])),
    ];
    for (name, layout) in swizzles {
        add_layout(&mut corpus, name, &layout.expect("valid swizzle"), &mut rng);
    }
    corpus.mlir.push_str("}\n");
    corpus
}

/// Signed and remaining unsigned ops on the whole 64-bit range (negative values as two's complement), for the
/// languages whose index type is 64 bits wide (C, C++, CUDA C, Rust); the reference is Rust's i64/u64.
fn signed_corpus() -> Corpus {
    let mlir = "module {\n  func.func @signed_ops(%a: index, %b: index) -> (index, index, index, index, index, index, index) {\n    %c3 = arith.constant 3 : index\n    %q = arith.divsi %a, %b : index\n    %r = arith.remsi %a, %b : index\n    %s = arith.shrsi %a, %c3 : index\n    %mn = arith.minsi %a, %b : index\n    %mx = arith.maxsi %a, %b : index\n    %lt = arith.cmpi sge, %a, %b : index\n    %sel = arith.select %lt, %a, %b : index\n    %cd = arith.ceildivui %a, %b : index\n    return %q, %r, %s, %mn, %mx, %sel, %cd : index, index, index, index, index, index, index\n  }\n}\n";
    let mut rng = SplitMix64::new(0x5197_ed00);
    let mut values: Vec<u64> = vec![1, 2, 3, 7, 100, u64::MAX, u64::MAX - 6, 1 << 63 | 5, i64::MAX as u64, (-100i64) as u64];
    values.extend((0..30).map(|_| rng.next_u64() >> rng.below(64)));
    let mut queries = Vec::new();
    for &a in &values {
        for &b in &values {
            let (x, y) = (a as i64, b as i64);
            if y == 0 || (x == i64::MIN && y == -1) {
                continue;
            }
            let expected = vec![
                (x / y) as u64,
                (x % y) as u64,
                (x >> 3) as u64,
                x.min(y) as u64,
                x.max(y) as u64,
                if x >= y { a } else { b },
                a.div_ceil(b),
            ];
            queries.push((vec![a, b], expected));
        }
    }
    Corpus {
        mlir: mlir.to_string(),
        functions: vec![Function { name: "signed_ops".into(), params: 2, results: 7, queries }],
        prelowered: true,
        flags: &[],
    }
}

/// `--assert-bounds` on test/translate/Inputs/swz.mlir: an 8 x 8 XOR swizzle gen_p whose lowering relies on
/// its domain (apply(i, j) = 8i + (j xor (i mod 8)); lego-lower drops the `mod 8`), its inverse, and a
/// symbolic row's inverse. In the domain the results are the gen_p's own arithmetic (every index);
/// [`OUT_OF_DOMAIN`] holds a query outside it per function, which must stop the program.
fn bounds_corpus() -> Corpus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/translate/Inputs/swz.mlir");
    let mlir = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let swz = |i: u64, j: u64| 8 * i + (j ^ (i % 8));
    let mut apply = Vec::new();
    let mut inverse = Vec::new();
    for i in 0..8 {
        for j in 0..8 {
            apply.push((vec![i, j], vec![swz(i, j)]));
            inverse.push((vec![swz(i, j)], vec![i, j]));
        }
    }
    let mut symbolic = Vec::new();
    for (n, m) in [(1, 1), (3, 5), (7, 2)] {
        for pos in 0..n * m {
            symbolic.push((vec![pos, n, m], vec![pos / m, pos % m]));
        }
    }
    Corpus {
        mlir,
        functions: vec![
            Function { name: "swz".into(), params: 2, results: 1, queries: apply },
            Function { name: "unswz".into(), params: 1, results: 2, queries: inverse },
            Function { name: "sym_inverse".into(), params: 3, results: 2, queries: symbolic },
        ],
        prelowered: false,
        flags: &["--assert-bounds"],
    }
}

/// One call outside the domain per function of [`bounds_corpus`] (function number, arguments). swz(40, 0) is
/// the example: 360 from the lowered code, 320 from the gen_p's arithmetic.
const OUT_OF_DOMAIN: &[(usize, &[u64])] = &[(0, &[40, 0]), (0, &[3, 8]), (1, &[64]), (2, &[15, 3, 5])];

/// Runs the harness on each out-of-domain call alone: the program must fail (abort, panic, error stop,
/// exception) and say which bound does not hold.
fn check_out_of_domain(language: &str, corpus: &Corpus, command: impl Fn() -> Command) {
    for (id, arguments) in OUT_OF_DOMAIN {
        let line = format!("{id} {}\n", arguments.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
        let mut child = command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("{language}: could not start the harness ({error})"));
        {
            use std::io::Write;
            let _ = child.stdin.take().expect("piped stdin").write_all(line.as_bytes());
        }
        let output = child.wait_with_output().expect("harness output");
        let name = &corpus.functions[*id].name;
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(!output.status.success(), "{language}: {name}{arguments:?} is outside the domain but ran: {text}");
        assert!(
            text.contains(&format!("{name}: argument outside the domain")),
            "{language}: {name}{arguments:?} failed without the domain message: {text}"
        );
    }
    eprintln!("{language}: {} calls outside the domain stop the program", OUT_OF_DOMAIN.len());
}

fn work_dir(language: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lego-translate").join(language);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

/// The corpus lowered once (`lego-translate --lego-to-mlir`, i.e. lego-lower) for all the languages: lowering
/// is the slow part, and what is under test here is the printers.
fn lowered_corpus(corpus: &Corpus) -> &'static Path {
    static LOWERED: OnceLock<PathBuf> = OnceLock::new();
    LOWERED.get_or_init(|| {
        let dir = work_dir("lowered");
        let input = dir.join("corpus.mlir");
        std::fs::write(&input, &corpus.mlir).expect("write the corpus");
        let output = dir.join("lowered.mlir");
        let status = Command::new(env!("CARGO_BIN_EXE_lego-translate"))
            .arg("--lego-to-mlir")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .status()
            .expect("run lego-translate");
        assert!(status.success(), "lego-translate --lego-to-mlir failed on {}", input.display());
        output
    })
}

/// Runs lego-translate on the lowered corpus; returns the generated source.
fn translate(dir: &Path, corpus: &Corpus, flag: &str, extension: &str) -> PathBuf {
    let written;
    let from_source = !corpus.flags.is_empty();
    let input = if corpus.prelowered || from_source {
        written = dir.join("input.mlir");
        std::fs::write(&written, &corpus.mlir).expect("write the input");
        written.as_path()
    } else {
        lowered_corpus(corpus)
    };
    let output = dir.join(format!("generated.{extension}"));
    let status = Command::new(env!("CARGO_BIN_EXE_lego-translate"))
        .arg(format!("--{flag}"))
        .args(if from_source { &[][..] } else { &["--no-lower"][..] })
        .args(corpus.flags)
        .arg(input)
        .arg("-o")
        .arg(&output)
        .status()
        .expect("run lego-translate");
    assert!(status.success(), "lego-translate --{flag} failed on {}", input.display());
    output
}

fn run_tool(command: &mut Command, what: &str) {
    let output = command.output().unwrap_or_else(|error| {
        panic!("{what}: could not start {:?} ({error}); `make setup` installs the toolchains", command.get_program())
    });
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Feeds the queries (`function-number arguments…` per line) to a harness program and compares every output
/// line with the algebra. Negative outputs (Python, JavaScript: the all-ones "no element" of expand_by is -1)
/// are read modulo 2^64.
fn check_program(language: &str, corpus: &Corpus, command: &mut Command) {
    let mut input = String::new();
    let mut expected = Vec::new();
    for (id, function) in corpus.functions.iter().enumerate() {
        for (arguments, results) in &function.queries {
            let arguments: Vec<String> = arguments.iter().map(u64::to_string).collect();
            let _ = writeln!(input, "{id} {}", arguments.join(" "));
            expected.push((function.name.as_str(), arguments.join(", "), results.clone()));
        }
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{language}: could not start the harness ({error})"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("harness output");
    let _ = writer.join();
    assert!(output.status.success(), "{language} harness failed: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{language}: one output line per query");
    let mut failures = Vec::new();
    for (line, (name, arguments, results)) in lines.iter().zip(&expected) {
        let got: Vec<u64> = line
            .split_whitespace()
            .map(|word| word.parse::<i128>().map(|v| v.rem_euclid(1 << 64) as u64).unwrap_or(NO_ELEMENT ^ 1))
            .collect();
        if &got != results {
            failures.push(format!("{name}({arguments}) = {line}, the algebra says {results:?}"));
        }
    }
    assert!(failures.is_empty(), "{language}: {} of {} results differ:\n{}", failures.len(), lines.len(), failures[..failures.len().min(20)].join("\n"));
    let total: usize = corpus.functions.iter().map(|f| f.queries.len()).sum();
    eprintln!("{language}: {total} results of {} functions agree with the algebra", corpus.functions.len());
}

/// The C statement that calls `function` and stores its results in `r[]`: one result is returned, several come
/// back through out-pointers to locals of type `index_type`.
fn c_call(function: &Function, mut arguments: Vec<String>, index_type: &str) -> String {
    if function.results == 1 {
        return format!("r[0] = {}({});", function.name, arguments.join(", "));
    }
    let mut out = Vec::new();
    for k in 0..function.results {
        out.push(format!("{index_type} o{k};"));
        arguments.push(format!("&o{k}"));
    }
    let copies: String = (0..function.results).map(|k| format!(" r[{k}] = o{k};")).collect();
    format!("{{ {} {}({});{copies} }}", out.join(" "), function.name, arguments.join(", "))
}

fn c_like_harness(corpus: &Corpus, int: &str, call: impl Fn(&Function, &[String]) -> String) -> String {
    let mut text = format!(
        "int main(void) {{\n  long long id;\n  while (scanf(\"%lld\", &id) == 1) {{\n    {int} a[32] = {{0}}, r[32] = {{0}};\n    switch (id) {{\n"
    );
    for (id, function) in corpus.functions.iter().enumerate() {
        let arguments: Vec<String> = (0..function.params).map(|k| format!("a[{k}]")).collect();
        let reads: String = (0..function.params).map(|k| format!("scanf(\"%llu\", &a[{k}]); ")).collect();
        let prints: String = (0..function.results).map(|k| format!("printf(\"%llu \", (unsigned long long)r[{k}]); ")).collect();
        let _ = writeln!(text, "    case {id}: {{ {reads}{} {prints}break; }}", call(function, &arguments));
    }
    text.push_str("    default: return 2;\n    }\n    printf(\"\\n\");\n  }\n  return 0;\n}\n");
    text
}

#[test]
fn c_output_runs_and_agrees_with_the_algebra() {
    run_c(&corpus(), &work_dir("c"));
    run_c(&signed_corpus(), &work_dir("c-signed"));
    let bounds = bounds_corpus();
    let binary = run_c(&bounds, &work_dir("c-bounds"));
    check_out_of_domain("C", &bounds, || Command::new(&binary));
}

/// `--index-bitwidth=32`: the corpus (every layout below 2^32 positions, every value too) in `uint32_t`, as
/// exact as the 64-bit output except that expand_by's "no element" is the 32-bit all-ones value.
#[test]
fn c_output_with_32_bit_indices_runs_and_agrees_with_the_algebra() {
    let mut corpus = corpus();
    for function in &mut corpus.functions {
        for (_, results) in &mut function.queries {
            for value in results.iter_mut() {
                if *value == NO_ELEMENT {
                    *value = u64::from(u32::MAX);
                }
                assert!(*value <= u64::from(u32::MAX), "{}: the corpus fits 32 bits", function.name);
            }
        }
    }
    let dir = work_dir("c32");
    let input = lowered_corpus(&corpus);
    let generated = dir.join("generated.h");
    run_tool(
        Command::new(env!("CARGO_BIN_EXE_lego-translate"))
            .args(["--lego-to-c", "--no-lower", "--index-bitwidth=32"])
            .arg(input)
            .arg("-o")
            .arg(&generated),
        "lego-translate --index-bitwidth=32",
    );
    assert!(std::fs::read_to_string(&generated).unwrap().contains("uint32_t"), "a 32-bit index type");
    let harness = c_like_harness(&corpus, "unsigned long long", |function, arguments| {
        let arguments: Vec<String> = arguments.iter().map(|a| format!("(uint32_t){a}")).collect();
        c_call(function, arguments, "uint32_t")
    });
    let main = dir.join("main.c");
    std::fs::write(&main, format!("#include <stdio.h>\n#include \"{}\"\n{harness}", generated.display())).unwrap();
    let binary = dir.join("main");
    run_tool(Command::new("cc").args(["-std=c99", "-O1", "-Wall", "-Werror", "-Wno-unused-function"]).arg(&main).arg("-o").arg(&binary), "cc");
    check_program("C (32-bit index)", &corpus, &mut Command::new(&binary));
}

fn run_c(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-c", "h");
    let harness = c_like_harness(&corpus, "unsigned long long", |function, arguments| {
        c_call(function, arguments.to_vec(), "uint64_t")
    });
    let main = dir.join("main.c");
    std::fs::write(&main, format!("#include <stdio.h>\n#include \"{}\"\n{harness}", generated.display())).unwrap();
    let binary = dir.join("main");
    run_tool(Command::new("cc").args(["-std=c99", "-O1", "-Wall", "-Werror", "-Wno-unused-function"]).arg(&main).arg("-o").arg(&binary), "cc");
    check_program("C", &corpus, &mut Command::new(&binary));
    binary
}

#[test]
fn cpp_output_runs_and_agrees_with_the_algebra() {
    run_cpp(&corpus(), &work_dir("cpp"));
    run_cpp(&signed_corpus(), &work_dir("cpp-signed"));
    let bounds = bounds_corpus();
    let binary = run_cpp(&bounds, &work_dir("cpp-bounds"));
    check_out_of_domain("C++", &bounds, || Command::new(&binary));
}

fn run_cpp(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-cpp", "hpp");
    let harness = c_like_harness(&corpus, "unsigned long long", |function, arguments| {
        if function.results == 1 {
            format!("r[0] = {}({});", function.name, arguments.join(", "))
        } else {
            let names: Vec<String> = (0..function.results).map(|k| format!("o{k}")).collect();
            let copies: String = (0..function.results).map(|k| format!(" r[{k}] = o{k};")).collect();
            format!("{{ auto [{}] = {}({});{copies} }}", names.join(", "), function.name, arguments.join(", "))
        }
    });
    let main = dir.join("main.cpp");
    std::fs::write(&main, format!("#include <cstdio>\n#include \"{}\"\n{harness}", generated.display())).unwrap();
    let binary = dir.join("main");
    run_tool(Command::new("c++").args(["-std=c++17", "-O1", "-Wall", "-Werror"]).arg(&main).arg("-o").arg(&binary), "c++");
    check_program("C++", &corpus, &mut Command::new(&binary));
    binary
}

/// CUDA C: run as host code (`__host__ __device__` functions are host functions too), and compiled for the
/// device by clang-22's CUDA mode into PTX.
#[test]
fn cuda_output_runs_on_the_host_and_compiles_for_the_device() {
    run_cuda(&corpus(), &work_dir("cuda"));
    run_cuda(&signed_corpus(), &work_dir("cuda-signed"));
    let bounds = bounds_corpus();
    let binary = run_cuda(&bounds, &work_dir("cuda-bounds"));
    check_out_of_domain("CUDA C (host)", &bounds, || Command::new(&binary));
}

fn run_cuda(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-cuda", "cuh");
    let call = |function: &Function, arguments: &[String]| {
        let mut arguments = arguments.to_vec();
        if function.results == 1 {
            format!("r[0] = {}({});", function.name, arguments.join(", "))
        } else {
            arguments.extend((0..function.results).map(|k| format!("r[{k}]")));
            format!("{}({});", function.name, arguments.join(", "))
        }
    };
    let harness = c_like_harness(&corpus, "unsigned long long", call);
    let main = dir.join("host.cpp");
    std::fs::write(&main, format!("#include <cstdio>\n#define __host__\n#define __device__\n#include \"{}\"\n{harness}", generated.display())).unwrap();
    let binary = dir.join("host");
    run_tool(Command::new("c++").args(["-std=c++17", "-O1", "-Wall", "-Werror"]).arg(&main).arg("-o").arg(&binary), "c++ (CUDA C as host code)");
    check_program("CUDA C (host)", &corpus, &mut Command::new(&binary));

    // Device compile: one kernel calling every function. Without CUDA's headers (-nocudainc) the device
    // intrinsics the bit-count helpers call are declared here, with CUDA's signatures.
    // The device-side assert() (--assert-bounds) is CUDA's __assertfail behind glibc's __assert_fail, as
    // clang's CUDA runtime wrapper declares them.
    let intrinsics = "__device__ int __clzll(long long);\n__device__ int __ffsll(long long);\n__device__ int __popcll(unsigned long long);\n\
        extern \"C\" {\n__device__ void __assertfail(const char *, const char *, unsigned, const char *, unsigned long);\n\
        __device__ inline void __assert_fail(const char *m, const char *f, unsigned l, const char *fn) { __assertfail(m, f, l, fn, 1); }\n}\n";
    let mut kernel = format!("{intrinsics}#include \"{}\"\n__global__ void every_function(unsigned long long *d) {{\n  unsigned long long r[32];\n", generated.display());
    for function in &corpus.functions {
        let arguments: Vec<String> = (0..function.params).map(|k| format!("d[{k}]")).collect();
        let _ = writeln!(kernel, "  {} d[31] += r[0];", call(function, &arguments));
    }
    kernel.push_str("}\n");
    let source = dir.join("kernel.cu");
    std::fs::write(&source, kernel).unwrap();
    let ptx = dir.join("kernel.ptx");
    run_tool(
        Command::new("clang-22")
            .args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70"])
            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx60", "-Wall", "-Werror", "-S"])
            .args(["-D__host__=__attribute__((host))", "-D__device__=__attribute__((device))", "-D__global__=__attribute__((global))"])
            .arg(&source)
            .arg("-o")
            .arg(&ptx),
        "clang-22 (CUDA device compile)",
    );
    let ptx_text = std::fs::read_to_string(&ptx).unwrap();
    assert!(ptx_text.contains(".entry") && ptx_text.contains("every_function"), "no kernel in the PTX");
    binary
}

#[test]
fn rust_output_runs_and_agrees_with_the_algebra() {
    run_rust(&corpus(), &work_dir("rust"));
    run_rust(&signed_corpus(), &work_dir("rust-signed"));
    let bounds = bounds_corpus();
    let binary = run_rust(&bounds, &work_dir("rust-bounds"));
    check_out_of_domain("Rust", &bounds, || Command::new(&binary));
}

fn run_rust(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-rust", "rs");
    let mut main = format!(
        "#![deny(warnings)]\ninclude!({:?});\nuse std::io::BufRead;\nfn main() {{\n  for line in std::io::stdin().lock().lines() {{\n    let line = line.unwrap();\n    let w: Vec<u64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();\n    let r: Vec<u64> = match w[0] {{\n",
        generated.display().to_string()
    );
    for (id, function) in corpus.functions.iter().enumerate() {
        let arguments: Vec<String> = (0..function.params).map(|k| format!("w[{}]", k + 1)).collect();
        let call = format!("{}({})", function.name, arguments.join(", "));
        let body = if function.results == 1 {
            format!("vec![{call}]")
        } else {
            let names: Vec<String> = (0..function.results).map(|k| format!("o{k}")).collect();
            format!("{{ let ({}) = {call}; vec![{}] }}", names.join(", "), names.join(", "))
        };
        let _ = writeln!(main, "      {id} => {body},");
    }
    main.push_str("      _ => panic!(\"unknown function\"),\n    };\n    println!(\"{}\", r.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(\" \"));\n  }\n}\n");
    let source = dir.join("main.rs");
    std::fs::write(&source, main).unwrap();
    let binary = dir.join("main");
    // Debug build: overflow checks on, so a `+` that should have been wrapping would panic.
    run_tool(Command::new("rustc").args(["--edition", "2021", "-C", "debug-assertions=on"]).arg(&source).arg("-o").arg(&binary), "rustc");
    check_program("Rust", &corpus, &mut Command::new(&binary));
    binary
}

#[test]
fn fortran_output_runs_and_agrees_with_the_algebra() {
    run_fortran(&corpus(), &work_dir("fortran"), "f2008");
    // error stop in a pure procedure is Fortran 2018.
    let bounds = bounds_corpus();
    let binary = run_fortran(&bounds, &work_dir("fortran-bounds"), "f2018");
    check_out_of_domain("Fortran", &bounds, || Command::new(&binary));
}

fn run_fortran(corpus: &Corpus, dir: &Path, standard: &str) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-fortran", "f90");
    let module = std::fs::read_to_string(&generated).unwrap();
    let module_name = module.lines().find_map(|line| line.strip_prefix("module ")).expect("a Fortran module").trim().to_string();
    let mut main = format!(
        "program harness\n  use, intrinsic :: iso_fortran_env, only: int64\n  use {module_name}\n  implicit none\n  character(len=1024) :: line\n  integer :: id, ios, k\n  integer(int64) :: a(32), r(32)\n  do\n    read(*, '(A)', iostat=ios) line\n    if (ios /= 0) exit\n    read(line, *) id\n    r = 0\n    select case (id)\n"
    );
    for (id, function) in corpus.functions.iter().enumerate() {
        let arguments: Vec<String> = (0..function.params).map(|k| format!("a({})", k + 1)).collect();
        let reads = if function.params == 0 { String::new() } else { format!(", (a(k), k = 1, {})", function.params) };
        let call = if function.results == 1 {
            format!("r(1) = {}({})", function.name, arguments.join(", "))
        } else {
            let mut all = arguments.clone();
            all.extend((0..function.results).map(|k| format!("r({})", k + 1)));
            format!("call {}({})", function.name, all.join(", "))
        };
        let _ = writeln!(main, "    case ({id})\n      read(line, *) id{reads}\n      {call}\n      write(*, '(*(I0, 1X))') r(1:{})", function.results);
    }
    main.push_str("    case default\n      stop 2\n    end select\n  end do\nend program harness\n");
    let source = dir.join("main.f90");
    std::fs::write(&source, main).unwrap();
    let binary = dir.join("main");
    run_tool(
        Command::new("gfortran").arg(format!("-std={standard}")).args(["-Wall", "-Werror", "-Wno-unused-dummy-argument", "-ffree-line-length-132"]).arg(&generated).arg(&source).arg("-o").arg(&binary).current_dir(&dir),
        "gfortran",
    );
    check_program("Fortran", &corpus, &mut Command::new(&binary));
    binary
}

#[test]
fn javascript_output_runs_and_agrees_with_the_algebra() {
    run_javascript(&corpus(), &work_dir("js"));
    let bounds = bounds_corpus();
    let script = run_javascript(&bounds, &work_dir("js-bounds"));
    check_out_of_domain("JavaScript", &bounds, || {
        let mut command = Command::new("node");
        command.arg(&script);
        command
    });
}

fn run_javascript(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-js", "js");
    let mut main = format!("const g = require({:?});\nconst table = [\n", generated.display().to_string());
    for function in &corpus.functions {
        let _ = writeln!(main, "  [g.{}, {}],", function.name, function.results);
    }
    main.push_str(
        "];\nconst out = [];\nfor (const line of require('fs').readFileSync(0, 'utf8').split('\\n')) {\n  if (!line.trim()) continue;\n  const w = line.trim().split(/\\s+/).map(Number);\n  const [f, n] = table[w[0]];\n  const r = f(...w.slice(1));\n  out.push((n === 1 ? [r] : r).map((v) => { if (!Number.isInteger(v)) throw new Error('not an integer: ' + v); return BigInt(v).toString(); }).join(' '));\n}\nprocess.stdout.write(out.join('\\n') + '\\n');\n",
    );
    let source = dir.join("main.js");
    std::fs::write(&source, main).unwrap();
    check_program("JavaScript", &corpus, Command::new("node").arg(&source));
    source
}

#[test]
fn python_output_runs_and_agrees_with_the_algebra() {
    run_python(&corpus(), &work_dir("python"));
    let bounds = bounds_corpus();
    let script = run_python(&bounds, &work_dir("python-bounds"));
    check_out_of_domain("Python", &bounds, || {
        let mut command = Command::new("python3");
        command.arg(&script);
        command
    });
}

fn run_python(corpus: &Corpus, dir: &Path) -> PathBuf {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-python", "py");
    let mut main = format!("import sys\nsys.path.insert(0, {:?})\nimport generated as g\ntable = [\n", dir.display().to_string());
    for function in &corpus.functions {
        let _ = writeln!(main, "    (g.{}, {}),", function.name, function.results);
    }
    main.push_str(
        "]\nout = []\nfor line in sys.stdin:\n    w = [int(x) for x in line.split()]\n    if not w:\n        continue\n    f, n = table[w[0]]\n    r = f(*w[1:])\n    r = (r,) if n == 1 else r\n    assert all(isinstance(v, int) for v in r), r\n    out.append(' '.join(str(v) for v in r))\nsys.stdout.write('\\n'.join(out) + '\\n')\n",
    );
    let source = dir.join("main.py");
    std::fs::write(&source, main).unwrap();
    assert!(generated.ends_with("generated.py"));
    check_program("Python", &corpus, Command::new("python3").arg(&source));
    source
}

/// GLSL: a compute shader calling every function, validated by glslangValidator (no GPU here).
#[test]
fn glsl_output_validates() {
    validate_glsl(&corpus(), &work_dir("glsl"));
    validate_glsl(&bounds_corpus(), &work_dir("glsl-bounds"));
}

fn validate_glsl(corpus: &Corpus, dir: &Path) {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-glsl", "glsl");
    let mut shader = format!(
        "#version 450\n{}\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Data {{ uint d[]; }};\nvoid main() {{\n  uint r[32];\n",
        std::fs::read_to_string(&generated).unwrap()
    );
    for function in &corpus.functions {
        let mut arguments: Vec<String> = (0..function.params).map(|k| format!("d[{k}]")).collect();
        if function.results == 1 {
            let _ = writeln!(shader, "  r[0] = {}({});", function.name, arguments.join(", "));
        } else {
            arguments.extend((0..function.results).map(|k| format!("r[{k}]")));
            let _ = writeln!(shader, "  {}({});", function.name, arguments.join(", "));
        }
        let _ = writeln!(shader, "  d[31] += r[0];");
    }
    shader.push_str("}\n");
    let source = dir.join("every_function.comp");
    std::fs::write(&source, shader).unwrap();
    run_tool(Command::new("glslangValidator").arg(&source), "glslangValidator");
}

/// WGSL: a compute entry point calling every function, validated by naga (no GPU here).
#[test]
fn wgsl_output_validates() {
    validate_wgsl(&corpus(), &work_dir("wgsl"));
    validate_wgsl(&bounds_corpus(), &work_dir("wgsl-bounds"));
}

fn validate_wgsl(corpus: &Corpus, dir: &Path) {
    let (corpus, dir) = (corpus, dir.to_path_buf());
    let generated = translate(&dir, &corpus, "lego-to-wgsl", "wgsl");
    let mut shader = format!(
        "{}\n@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n@compute @workgroup_size(64)\nfn every_function() {{\n",
        std::fs::read_to_string(&generated).unwrap()
    );
    for function in &corpus.functions {
        let arguments: Vec<String> = (0..function.params).map(|k| format!("d[{k}]")).collect();
        let call = format!("{}({})", function.name, arguments.join(", "));
        if function.results == 1 {
            let _ = writeln!(shader, "  d[31] += {call};");
        } else {
            let _ = writeln!(shader, "  d[31] += {call}.r0;");
        }
    }
    shader.push_str("}\n");
    let source = dir.join("every_function.wgsl");
    std::fs::write(&source, shader).unwrap();
    run_tool(Command::new("naga").arg(&source), "naga");
}
