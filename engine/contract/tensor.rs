//! Declared graph inputs and outputs (`graph.inputs` / `graph.outputs` of every manifest): names, element types
//! and shapes with fixed or symbolic dimensions. Backends compare a loaded graph against these.

use serde::{Deserialize, Serialize};

/// Element types the contracts use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    /// IEEE single.
    Float32,
    /// IEEE half.
    Float16,
    /// 64-bit signed integer.
    Int64,
    /// 32-bit signed integer.
    Int32,
    /// 8-bit signed integer.
    Int8,
    /// 8-bit unsigned integer.
    Uint8,
    /// Boolean.
    Bool,
}

impl DType {
    /// The name as written in manifests (`float32`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float16 => "float16",
            DType::Int64 => "int64",
            DType::Int32 => "int32",
            DType::Int8 => "int8",
            DType::Uint8 => "uint8",
            DType::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Float32 | DType::Int32 => 4,
            DType::Float16 => 2,
            DType::Int64 => 8,
            DType::Int8 | DType::Uint8 | DType::Bool => 1,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The graph file and its declared inputs and outputs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GraphSpec {
    /// The ONNX file inside the folder.
    pub file: String,
    /// Declared inputs.
    pub inputs: Vec<TensorSpec>,
    /// Declared outputs.
    pub outputs: Vec<TensorSpec>,
}

impl GraphSpec {
    /// The declared input called `name`, if any.
    pub fn input(&self, name: &str) -> Option<&TensorSpec> {
        self.inputs.iter().find(|t| t.name == name)
    }

    /// The declared output called `name`, if any.
    pub fn output(&self, name: &str) -> Option<&TensorSpec> {
        self.outputs.iter().find(|t| t.name == name)
    }
}

/// One declared input or output.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TensorSpec {
    /// Tensor name.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Dimensions: numbers are fixed, strings are symbolic (`batch`, `seq`, ...).
    pub shape: Vec<Dim>,
}

/// A dimension: fixed or symbolic.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Dim {
    /// A fixed size.
    Fixed(i64),
    /// A named dynamic size.
    Symbolic(String),
}
