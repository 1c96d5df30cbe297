//! Reads the lowered function back: the values `func.return` returns, as a DAG of arith nodes that the
//! Python layer turns into SymPy (`python/lego/_bridge.py`, table of the published API, §5.6 step 5).
//!
//! A node is `(kind, operands, extra)`: `("const", [], value)`, `("bool", [], 0 or 1)`, `("arg", [], k)`, or the arith op name without
//! its dialect prefix with operand node indices (`("addi", [a, b], None)`, `("cmpi", [a, b], "ult")`,
//! `("select", [c, a, b], None)`). Nodes are listed operands first, each value once, so a shared subterm is
//! converted once however often it is used.

use std::collections::HashMap;

use melior::ir::{
    attribute::IntegerAttribute, block::BlockLike, operation::OperationLike, BlockRef, Value, ValueLike,
};

pub type Node = (String, Vec<usize>, Option<NodeExtra>);

#[derive(Debug, Clone)]
pub enum NodeExtra {
    Int(i64),
    Text(String),
}

const PREDICATES: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];

/// The ops whose results are read back; anything else in the lowered code is an error naming the op.
const SUPPORTED: &[&str] = &[
    "addi", "subi", "muli", "divui", "divsi", "remui", "remsi", "ceildivui", "ceildivsi", "floordivsi", "maxui",
    "maxsi", "minui", "minsi", "shli", "shrui", "shrsi", "andi", "ori", "xori", "cmpi", "select", "index_cast",
    "index_castui", "extui", "extsi", "trunci",
];

pub struct Reader {
    pub nodes: Vec<Node>,
    seen: HashMap<usize, usize>,
}

impl Reader {
    pub fn new() -> Self {
        Reader { nodes: Vec::new(), seen: HashMap::new() }
    }

    fn add(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The node of `value`, converting what it depends on first (iteratively: lowered code can be deep).
    pub fn value(&mut self, root: Value, arguments: &[Value]) -> Result<usize, String> {
        let key = |value: &Value| value.to_raw().ptr as usize;
        let mut stack = vec![(root, false)];
        while let Some((value, expanded)) = stack.pop() {
            if self.seen.contains_key(&key(&value)) {
                continue;
            }
            if let Some(position) = arguments.iter().position(|argument| key(argument) == key(&value)) {
                let node = self.add(("arg".to_string(), Vec::new(), Some(NodeExtra::Int(position as i64))));
                self.seen.insert(key(&value), node);
                continue;
            }
            let Ok(result) = melior::ir::operation::OperationResult::try_from(value) else {
                return Err("the lowered code uses a block argument that is not a function argument".to_string());
            };
            let op = result.owner();
            let name = op.name().as_string_ref().as_str().map_err(|e| e.to_string())?.to_string();
            if name == "arith.constant" {
                let attribute = op.attribute("value").map_err(|e| e.to_string())?;
                let integer = IntegerAttribute::try_from(attribute)
                    .map_err(|_| format!("the lowered code holds a non-integer constant: {attribute}"))?;
                // An i1 constant is a condition ("bool", 0 or 1: `true` reads back as -1, all bits set).
                let node = if value.r#type().to_string() == "i1" {
                    self.add(("bool".to_string(), Vec::new(), Some(NodeExtra::Int(i64::from(integer.value() != 0)))))
                } else {
                    self.add(("const".to_string(), Vec::new(), Some(NodeExtra::Int(integer.value()))))
                };
                self.seen.insert(key(&value), node);
                continue;
            }
            let Some(short) = name.strip_prefix("arith.").filter(|short| SUPPORTED.contains(short)) else {
                return Err(format!(
                    "the lowered code holds '{name}', which the Python layer does not convert to SymPy (lowered with lego-lower)"
                ));
            };
            let operands: Vec<Value> = op.operands().collect();
            if !expanded {
                stack.push((value, true));
                for operand in operands.iter().rev() {
                    if !self.seen.contains_key(&key(operand)) {
                        stack.push((*operand, false));
                    }
                }
                continue;
            }
            let indices = operands
                .iter()
                .map(|operand| self.seen.get(&key(operand)).copied().ok_or_else(|| "internal error: operand not converted".to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            let extra = if short == "cmpi" {
                let predicate = op.attribute("predicate").map_err(|e| e.to_string())?;
                let predicate = IntegerAttribute::try_from(predicate).map_err(|_| "cmpi without an integer predicate".to_string())?;
                let name = PREDICATES.get(predicate.value() as usize).ok_or("cmpi with an unknown predicate")?;
                Some(NodeExtra::Text(name.to_string()))
            } else {
                None
            };
            let node = self.add((short.to_string(), indices, extra));
            self.seen.insert(key(&value), node);
        }
        self.seen.get(&key(&root)).copied().ok_or_else(|| "internal error: result not converted".to_string())
    }
}

/// The operands of the `func.return` ending `block`.
pub fn returned<'c, 'a>(block: BlockRef<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, String> {
    let terminator = block.terminator().ok_or("the lowered function has no terminator")?;
    let name = terminator.name().as_string_ref().as_str().map_err(|e| e.to_string())?.to_string();
    if name != "func.return" {
        return Err(format!("the lowered function ends in '{name}' (control flow the Python layer does not convert)"));
    }
    Ok(terminator.operands().collect())
}
