//! A JSON Schema check of results documents, for tests: the results crate's schema tests and the
//! CLI's (which include this file), through boon, a validator of drafts 4 to 2020-12 that
//! bundles its metaschemas and fetches nothing.

use serde_json::Value;

/// A compiled schema.
pub struct SchemaCheck {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl SchemaCheck {
    /// Compiles `schema`; panics, saying why, when it is not a JSON Schema.
    pub fn new(schema: &Value) -> Self {
        const PLACE: &str = "urn:gpubench:results-schema";
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource(PLACE, schema.clone())
            .unwrap_or_else(|e| panic!("the schema cannot be added: {e}"));
        let index = compiler
            .compile(PLACE, &mut schemas)
            .unwrap_or_else(|e| panic!("the schema is not a JSON Schema: {e:#}"));
        Self { schemas, index }
    }

    /// Whether `doc` validates.
    pub fn is_valid(&self, doc: &Value) -> bool {
        self.schemas.validate(doc, self.index).is_ok()
    }

    /// Why `doc` does not validate: its first five innermost errors, each with the place in the
    /// document; empty when it validates.
    pub fn errors(&self, doc: &Value) -> Vec<String> {
        let Err(error) = self.schemas.validate(doc, self.index) else {
            return Vec::new();
        };
        let mut leaves = Vec::new();
        let mut pending = vec![&error];
        while let Some(e) = pending.pop() {
            if e.causes.is_empty() {
                leaves.push(format!("{} at {}", e.kind, e.instance_location));
            } else {
                pending.extend(e.causes.iter().rev());
            }
        }
        leaves.truncate(5);
        leaves
    }
}
