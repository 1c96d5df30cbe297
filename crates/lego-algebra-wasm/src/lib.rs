//! lego-algebra for LEGO Studio's page, compiled to `wasm32-unknown-unknown` (docs/studio.md).
//!
//! The page hands a request as JSON and gets JSON back, through linear memory and a plain C ABI (no
//! wasm-bindgen: nothing but rustc's own wasm32 target is needed to build it):
//!
//! ```text
//! ptr = studio_alloc(len)            // the page writes `len` bytes of UTF-8 request JSON at ptr
//! packed = studio_call(ptr, len)     // consumes the request; packed = (result_ptr << 32) | result_len
//! studio_free(result_ptr, result_len) // after the page has read the result JSON
//! ```
//!
//! Requests (layouts in the form of `lego_algebra::describe`):
//! - `{"cmd": "view", "layout": L}` → the layout's text, dims, every logical element's physical offset
//!   (`offsets`, row-major over the logical dims, -1 where `expand_by` padding has no element), the inverse
//!   (`inverse`: for each offset, the row-major logical index `apply_inverse` gives, -1 for padding; `null`
//!   for an apply-only layout) and the tile structure of a `tile_by` (`tiles`: its blocks' dims and levels);
//! - `{"cmd": "gpu", "layout": L, "threads": [dim, ...], "block": [size, ...], "elem_bytes": 4, "banks": 32}`
//!   → each warp request's bank-conflict degree and sectors per request (`lego_algebra::memcost`, the
//!   definition the `lego-analyze-memory` pass uses), and per logical element the request that touches it.
//!   See [`gpu_view`] for which threads issue which request.
//!
//! Errors (malformed JSON, invalid layouts, too many elements) are `{"error": "..."}`, never a trap.

use lego_algebra::memcost::{bank_conflict_degree, sectors_per_request};
use lego_algebra::{describe, mixed_radix_flatten, mixed_radix_unflatten, Layout, NO_ELEMENT};
use serde::Deserialize;
use serde_json::{json, Value};

/// The most logical elements (or physical positions) the page is asked to draw: 512 × 512.
pub const MAX_DRAW_ELEMENTS: u64 = 1 << 18;
/// Lanes of one warp.
pub const WARP_SIZE: u64 = 32;

#[derive(Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
enum Request {
    View { layout: Value },
    Gpu {
        layout: Value,
        threads: Vec<usize>,
        block: Vec<u64>,
        #[serde(default = "default_elem_bytes")]
        elem_bytes: u64,
        #[serde(default = "default_banks")]
        banks: u64,
    },
}

fn default_elem_bytes() -> u64 {
    4
}

fn default_banks() -> u64 {
    32
}

/// One request in, one JSON answer out (`{"error": …}` on any failure).
pub fn handle(request: &str) -> String {
    let answer = serde_json::from_str::<Request>(request)
        .map_err(|e| format!("studio request: {e}"))
        .and_then(|request| match request {
            Request::View { layout } => build(&layout).and_then(|l| view(&l)),
            Request::Gpu { layout, threads, block, elem_bytes, banks } => {
                build(&layout).and_then(|l| gpu_view(&l, &threads, &block, elem_bytes, banks))
            }
        });
    match answer {
        Ok(value) => value.to_string(),
        Err(error) => json!({ "error": error }).to_string(),
    }
}

fn build(desc: &Value) -> Result<Layout, String> {
    describe::from_json(&desc.to_string()).map_err(|e| e.to_string())
}

fn check_drawable(layout: &Layout) -> Result<(), String> {
    let largest = layout.numel().max(layout.codomain_size());
    if largest > MAX_DRAW_ELEMENTS {
        return Err(format!("{largest} elements: too many to draw (at most {MAX_DRAW_ELEMENTS})"));
    }
    Ok(())
}

fn signed(flat: u64) -> i64 {
    if flat == NO_ELEMENT { -1 } else { flat as i64 }
}

/// The `view` answer: offsets of every logical element, the inverse of every offset, the tile structure.
pub fn view(layout: &Layout) -> Result<Value, String> {
    check_drawable(layout)?;
    let dims = layout.dims().to_vec();
    let offsets = (0..layout.numel())
        .map(|flat| layout.apply(&mixed_radix_unflatten(&dims, flat)).map(signed))
        .collect::<Result<Vec<i64>, _>>()
        .map_err(|e| e.to_string())?;
    // The inverse is evaluated with apply_inverse (not by inverting `offsets`), so the page shows what the
    // layout's inverse computes; a padding offset of expand_by has no element (an error there) and is -1.
    let inverse: Option<Vec<i64>> = layout.is_invertible().then(|| {
        (0..layout.codomain_size())
            .map(|x| {
                layout
                    .apply_inverse(x)
                    .ok()
                    .and_then(|index| mixed_radix_flatten(&dims, &index).ok())
                    .map_or(-1, |flat| flat as i64)
            })
            .collect()
    });
    let tiles = layout.tile_structure().map(|(blocks, levels)| {
        json!({
            "blocks": blocks.iter().map(|b| b.dims().to_vec()).collect::<Vec<_>>(),
            "levels": levels.iter().map(|level| level.iter().map(|d| d.value).collect::<Vec<_>>()).collect::<Vec<_>>(),
        })
    });
    Ok(json!({
        "text": layout.to_string(),
        "dims": dims,
        "numel": layout.numel(),
        "codomain": layout.codomain_size(),
        "invertible": layout.is_invertible(),
        "offsets": offsets,
        "inverse": inverse,
        "tiles": tiles,
    }))
}

/// The GPU view. `threads` names the logical dims that threads index (the last one varies fastest in the
/// thread id), `block` the block's extent along each (dividing the dim). A block's thread `t` has coordinates
/// `mixed_radix_unflatten(block, t)`; lanes `32w .. 32w+31` form warp `w`. Every other logical dim, and the
/// block's position along each thread dim, is a *step*: at each step every warp issues one request, lane `l`
/// accessing element `index` at byte address `apply(index) · elem_bytes` (a padding element of `expand_by`
/// makes the lane inactive). Each request is costed with `lego_algebra::memcost` as shared memory
/// (bank-conflict degree, `banks` banks) and as global memory (sectors per request and the ideal).
pub fn gpu_view(layout: &Layout, threads: &[usize], block: &[u64], elem_bytes: u64, banks: u64) -> Result<Value, String> {
    check_drawable(layout)?;
    let dims = layout.dims().to_vec();
    let rank = dims.len();
    if threads.is_empty() || threads.len() != block.len() {
        return Err(format!("{} thread dims with {} block sizes: give one block size per thread dim", threads.len(), block.len()));
    }
    for (k, (&dim, &size)) in threads.iter().zip(block).enumerate() {
        if dim >= rank {
            return Err(format!("thread dim {dim}: the layout has {rank} dims"));
        }
        if threads[..k].contains(&dim) {
            return Err(format!("thread dim {dim} is named twice"));
        }
        if size == 0 || dims[dim] % size != 0 {
            return Err(format!("block size {size} along dim {dim} must divide its size {}", dims[dim]));
        }
    }
    let threads_per_block: u64 = block.iter().product();
    if threads_per_block > 1024 {
        return Err(format!("{threads_per_block} threads per block (at most 1024)"));
    }
    // Step coordinates: every non-thread dim, then each thread dim's block position.
    let others: Vec<usize> = (0..rank).filter(|d| !threads.contains(d)).collect();
    let mut step_sizes: Vec<u64> = others.iter().map(|&d| dims[d]).collect();
    step_sizes.extend(threads.iter().zip(block).map(|(&d, &b)| dims[d] / b));
    let steps: u64 = step_sizes.iter().product();
    let warps_per_block = threads_per_block.div_ceil(WARP_SIZE);
    let mut cell_request = vec![-1i64; layout.numel() as usize];
    let mut requests = Vec::new();
    let (mut sum_degree, mut max_degree, mut sum_sectors, mut sum_ideal) = (0u64, 0u64, 0u64, 0u64);
    for step in 0..steps {
        let step_index = mixed_radix_unflatten(&step_sizes, step);
        for warp in 0..warps_per_block {
            let mut addrs = Vec::with_capacity(WARP_SIZE as usize);
            let mut cells = Vec::with_capacity(WARP_SIZE as usize);
            for tid in warp * WARP_SIZE..((warp + 1) * WARP_SIZE).min(threads_per_block) {
                let coords = mixed_radix_unflatten(block, tid);
                let mut index = vec![0u64; rank];
                for (k, &d) in others.iter().enumerate() {
                    index[d] = step_index[k];
                }
                for (k, &d) in threads.iter().enumerate() {
                    index[d] = step_index[others.len() + k] * block[k] + coords[k];
                }
                let flat = layout.apply(&index).map_err(|e| e.to_string())?;
                let cell = mixed_radix_flatten(&dims, &index).map_err(|e| e.to_string())?;
                cells.push(cell);
                if flat != NO_ELEMENT {
                    addrs.push(flat.checked_mul(elem_bytes).ok_or("byte address overflows")?);
                }
            }
            let conflicts = bank_conflict_degree(&addrs, elem_bytes, banks).map_err(|e| e.to_string())?;
            let (sectors, ideal) = sectors_per_request(&addrs, elem_bytes).map_err(|e| e.to_string())?;
            let id = requests.len() as i64;
            for cell in cells {
                cell_request[cell as usize] = id;
            }
            sum_degree += conflicts.degree;
            max_degree = max_degree.max(conflicts.degree);
            sum_sectors += sectors;
            sum_ideal += ideal;
            requests.push(json!({
                "step": step_index,
                "warp": warp,
                "lanes": addrs.len(),
                "degree": conflicts.degree,
                "witness": conflicts.witness,
                "sectors": sectors,
                "ideal": ideal,
            }));
        }
    }
    let count = requests.len().max(1) as f64;
    Ok(json!({
        "threads": threads,
        "block": block,
        "elem_bytes": elem_bytes,
        "banks": banks,
        "step_dims": step_sizes,
        "requests": requests,
        "cell_request": cell_request,
        "max_degree": max_degree,
        "mean_degree": sum_degree as f64 / count,
        "sectors": sum_sectors,
        "ideal": sum_ideal,
    }))
}

/// Request bytes for the page to fill: a buffer of `len` bytes it hands to [`studio_call`] (or frees with
/// [`studio_free`]). Buffers are boxed slices both ways, so their length is their whole allocation.
#[no_mangle]
pub extern "C" fn studio_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()) as *mut u8
}

/// Frees a buffer of [`studio_alloc`] (unused) or a result of [`studio_call`].
///
/// # Safety
/// `ptr` and `len` must come from one `studio_alloc(len)` or one `studio_call` result, freed once.
#[no_mangle]
pub unsafe extern "C" fn studio_free(ptr: *mut u8, len: usize) {
    drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)));
}

/// Runs one request (`len` bytes of JSON at `ptr`, from `studio_alloc(len)`; consumed) and returns the answer
/// as `(ptr << 32) | len`, to be freed with `studio_free` (wasm32 pointers and lengths fit 32 bits).
///
/// # Safety
/// `ptr` must come from `studio_alloc(len)`, not freed.
#[no_mangle]
pub unsafe extern "C" fn studio_call(ptr: *mut u8, len: usize) -> u64 {
    let request = Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len));
    let answer = match std::str::from_utf8(&request) {
        Ok(text) => handle(text),
        Err(_) => json!({ "error": "studio request: not UTF-8" }).to_string(),
    };
    let answer = answer.into_bytes().into_boxed_slice();
    let out_len = answer.len();
    let out_ptr = Box::into_raw(answer) as *mut u8;
    ((out_ptr as usize as u64) << 32) | out_len as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(request: &str) -> Value {
        serde_json::from_str(&handle(request)).unwrap()
    }

    #[test]
    fn view_of_col_has_offsets_and_inverse() {
        let v = answer(r#"{"cmd":"view","layout":{"op":"col","dims":[2,3]}}"#);
        // col [2, 3]: (i, j) at i + 2j; row-major cells (0,0) (0,1) (0,2) (1,0) (1,1) (1,2).
        assert_eq!(v["offsets"], json!([0, 2, 4, 1, 3, 5]));
        // offset 1 holds (1,0) = row-major cell 3.
        assert_eq!(v["inverse"], json!([0, 3, 1, 4, 2, 5]));
        assert_eq!(v["text"], "col [2, 3]");
    }

    #[test]
    fn tile_by_reports_its_levels() {
        let v = answer(r#"{"cmd":"view","layout":{"op":"tile_by","inner":{"op":"order_by","parts":[{"op":"row","dims":[8,12]}]},"tile_dims":[[2,4],[4,3]]}}"#);
        assert_eq!(v["tiles"]["levels"], json!([[2, 4], [4, 3]]));
        assert_eq!(v["dims"], json!([2, 4, 4, 3]));
        // apply(1, 2, 3, 1) = (1·4+3)·12 + 2·3+1 = 91 (docs/reference/semantics.md, worked example 3).
        assert_eq!(v["offsets"][((1 * 4 + 2) * 4 + 3) * 3 + 1], 91);
    }

    #[test]
    fn gpu_view_of_row_and_col_32x32() {
        // Threads along dim 1 (columns), 32 per block: each warp reads one row. Row-major: conflict-free,
        // 4 sectors; column-major: 32 lanes 32 words apart, a 32-way conflict and a sector per lane.
        let row = answer(r#"{"cmd":"gpu","layout":{"op":"row","dims":[32,32]},"threads":[1],"block":[32]}"#);
        assert_eq!((row["max_degree"].as_u64(), row["sectors"].as_u64()), (Some(1), Some(32 * 4)));
        let col = answer(r#"{"cmd":"gpu","layout":{"op":"col","dims":[32,32]},"threads":[1],"block":[32]}"#);
        assert_eq!((col["max_degree"].as_u64(), col["sectors"].as_u64()), (Some(32), Some(32 * 32)));
        assert_eq!(col["requests"].as_array().unwrap().len(), 32);
    }

    /// The C ABI as the page uses it: alloc, write, call, read, free (on the host, pointers are 64-bit, so the
    /// packed answer is not used here; `call` is checked through `handle`'s text instead).
    #[test]
    fn c_abi_round_trip_frees_what_it_allocates() {
        let request = br#"{"cmd":"view","layout":{"op":"row","dims":[2,2]}}"#;
        unsafe {
            let ptr = studio_alloc(request.len());
            std::ptr::copy_nonoverlapping(request.as_ptr(), ptr, request.len());
            let unused = studio_alloc(0);
            studio_free(unused, 0);
            let packed = studio_call(ptr, request.len());
            let len = (packed & 0xffff_ffff) as usize;
            assert_eq!(len, handle(std::str::from_utf8(request).unwrap()).len());
        }
    }

    #[test]
    fn bad_requests_are_errors() {
        for bad in [
            "",
            "{",
            r#"{"cmd":"nope"}"#,
            r#"{"cmd":"view","layout":{"op":"row","dims":[0]}}"#,
            r#"{"cmd":"view","layout":{"op":"row","dims":[4096,4096]}}"#,
            r#"{"cmd":"gpu","layout":{"op":"row","dims":[4,4]},"threads":[2],"block":[4]}"#,
            r#"{"cmd":"gpu","layout":{"op":"row","dims":[4,4]},"threads":[1],"block":[3]}"#,
            r#"{"cmd":"gpu","layout":{"op":"row","dims":[4,4]},"threads":[1],"block":[4],"elem_bytes":3}"#,
        ] {
            assert!(answer(bad)["error"].is_string(), "{bad}");
        }
    }
}
