//! A pipeline's internal representations as a driver returns them
//! (`vkGetPipelineExecutableInternalRepresentationsKHR`): RADV gives, per executable, its NIR,
//! ACO's IR and the disassembly of the machine code, each as text.

use serde::Serialize;

use crate::IsaError;

/// One representation of one executable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Representation {
    /// The executable it belongs to ("Compute Shader").
    pub executable: String,
    /// The driver's name for it (RADV: "NIR Shader(s)", "ACO IR", "Assembly").
    pub name: String,
    /// The driver's description of it.
    pub description: String,
    /// Its text; `None` for a binary representation.
    pub text: Option<String>,
}

/// Every internal representation the driver returned for a pipeline, in its order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InternalRepresentations {
    /// The pipeline's name, for messages.
    pub kernel: String,
    /// The representations of every executable.
    pub representations: Vec<Representation>,
}

impl InternalRepresentations {
    /// The text of the first representation whose name or description contains one of `words`
    /// (case-insensitive).
    fn text_named(&self, words: &[&str]) -> Option<&str> {
        self.representations
            .iter()
            .filter(|r| {
                let (name, about) = (r.name.to_lowercase(), r.description.to_lowercase());
                words.iter().any(|w| name.contains(w) || about.contains(w))
            })
            .find_map(|r| r.text.as_deref())
    }

    /// The disassembly of the machine code (RADV's "Assembly", "Disassembly" elsewhere), or an
    /// error that names what the driver did return.
    pub fn disassembly(&self) -> Result<&str, IsaError> {
        self.text_named(&["assembly"])
            .ok_or_else(|| self.missing("disassembly"))
    }

    /// The compiler's IR before code generation (RADV: "NIR"), or an error as above.
    pub fn nir(&self) -> Result<&str, IsaError> {
        self.text_named(&["nir"]).ok_or_else(|| self.missing("NIR"))
    }

    fn missing(&self, wanted: &str) -> IsaError {
        let found: Vec<&str> = self
            .representations
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        IsaError::NoRepresentation {
            kernel: self.kernel.clone(),
            wanted: wanted.to_string(),
            found: if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str, description: &str, text: &str) -> Representation {
        Representation {
            executable: "Compute Shader".to_string(),
            name: name.to_string(),
            description: description.to_string(),
            text: Some(text.to_string()),
        }
    }

    #[test]
    fn representations_are_found_by_name_and_a_missing_one_says_what_there_was() {
        let reps = InternalRepresentations {
            kernel: "k".to_string(),
            representations: vec![
                text("NIR Shader(s)", "The optimized NIR shader(s)", "nir"),
                text("Assembly", "Final Assembly", "s_endpgm"),
            ],
        };
        assert_eq!(reps.disassembly().expect("there"), "s_endpgm");
        assert_eq!(reps.nir().expect("there"), "nir");
        let none = InternalRepresentations {
            kernel: "k".to_string(),
            representations: vec![text("NIR Shader(s)", "", "nir")],
        };
        let error = none.disassembly().expect_err("missing").to_string();
        assert!(
            error.contains("NIR Shader(s)") && error.contains("RADV"),
            "{error}"
        );
    }
}
