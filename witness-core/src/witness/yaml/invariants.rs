//! Issue 23: the content of a correctness witness (`invariant_set` entries of format 2.0/2.1):
//! loop and location invariants, and 2.1 function contracts (Goblint's `- contract:` item and
//! CPAchecker's legacy `- invariant: {type: function_contract}`). What the reader does not
//! support (other entry types, other invariant types, `\old`, unknown formats) becomes
//! `metadata.unsupported`: the validation answers unknown, never on the strength of the rest.

use super::*;
use crate::witness::{ExprFormat, InvariantKind, WitnessInvariant};

/// A correctness entry: its map, its `entry_type` and its position.
pub(super) type Entry<'a> = (&'a [(NodeId, NodeId)], &'a str, Pos);

const INVARIANT_FORMATS: &[&str] = &["c_expression", "acsl_expression", "ext_c_expression"];

impl<'a> Reader<'a> {
    /// Reads the correctness entries `entries` (each `(map, entry_type)`).
    pub(super) fn read_invariant_sets(&mut self, entries: &[Entry<'a>]) -> Result<WitnessAutomaton, InputError> {
        let (first, name, _) = entries[0];
        let mut w = self.metadata_only_automaton(first, name, WitnessType::Correctness);
        // The metadata again, now strictly (the routing read was best effort).
        let mut input_files = Vec::new();
        if let Some(m) = self.get(first, "metadata", "an invariant_set entry")? {
            let mut metadata = WitnessMetadata::default();
            input_files = self.read_metadata(m, &mut metadata)?;
            metadata.witness_type = Some(WitnessType::Correctness);
            w.metadata = metadata;
        }
        let mut unsupported: Vec<String> = Vec::new();
        for &(map, name, pos) in entries {
            if name != "invariant_set" {
                unsupported.push(format!("{pos}: entry type `{name}`"));
                continue;
            }
            self.check_keys("Y1", map, &["entry_type", "metadata", "content"], "an invariant_set entry");
            let Some(content) = self.get(map, "content", "an invariant_set entry")? else {
                return Err(self.err(pos, "invariant_set entry without `content` (the list of invariants)"));
            };
            for &item in self.seq(content, "the `content` of an invariant_set (a list of `- invariant:` items)")? {
                self.read_item(item, &input_files, &mut w.invariants, &mut unsupported)?;
            }
        }
        w.warnings = self.warnings.finish(self.path);
        if let Some(first) = unsupported.first() {
            let more =
                if unsupported.len() > 1 { format!(" (and {} more)", unsupported.len() - 1) } else { String::new() };
            w.metadata.unsupported = Some(format!(
                "{}:{first}{more} is not supported; a correctness witness is confirmed only when every entry is checked",
                self.path.display()
            ));
        } else if w.invariants.is_empty() {
            // An empty set claims only that the program is correct: checked like any other.
            self.warn("Y1", format!("{}: the invariant_set has no invariants", self.path.display()));
        }
        Ok(w)
    }

    fn read_item(
        &mut self,
        item: NodeId,
        input_files: &[String],
        out: &mut Vec<WitnessInvariant>,
        unsupported: &mut Vec<String>,
    ) -> Result<(), InputError> {
        let map = self.map(item, "an item of an invariant_set (`- invariant: {…}`)")?;
        let Some(&(key, value)) = map.first() else {
            return Err(self.err(self.pos(item), "empty item in an invariant_set"));
        };
        let kname = self.key_text(key).unwrap_or_default();
        let pos = self.pos(key);
        if kname != "invariant" && kname != "contract" {
            unsupported.push(format!("{pos}: item `{kname}`"));
            return Ok(());
        }
        let m = self.map(value, &format!("`{kname}`"))?;
        let Some(t) = self.get(m, "type", "an invariant")? else {
            return Err(self.err(pos, format!("`{kname}` without `type`")));
        };
        let tname = self.scalar(t, "the invariant `type`")?;
        let format = self.optional_text(m, "format", "an invariant")?;
        if let Some(f) = &format {
            if !INVARIANT_FORMATS.contains(&f.as_str()) {
                unsupported.push(format!("{}: invariant format `{f}`", self.pos(t)));
                return Ok(());
            }
        }
        let Some(l) = self.get(m, "location", "an invariant")? else {
            return Err(self.err(pos, format!("`{kname}` without `location`")));
        };
        let Location { line, column, file_name, function } =
            self.read_location(l, &format!("`{kname}`"), input_files)?;
        let origin = pos.to_string();
        // Decision 232: each expression is read by its own format's rules. Without `format`, an
        // invariant is C (format 2.0's default) and a contract ACSL (the one format the 2.1
        // contracts are specified in).
        let expr_format = match format.as_deref() {
            Some("acsl_expression") => ExprFormat::Acsl,
            Some(_) => ExprFormat::C,
            None if tname == "function_contract" => ExprFormat::Acsl,
            None => ExprFormat::C,
        };
        let mut push = |kind: InvariantKind, value: String| {
            out.push(WitnessInvariant {
                kind,
                value,
                format: expr_format,
                line,
                column,
                function: function.clone(),
                file_name: file_name.clone(),
                origin: origin.clone(),
            })
        };
        match tname {
            "loop_invariant" | "location_invariant" | "loop_transition_invariant" | "location_transition_invariant" => {
                self.check_keys("Y1", m, &["type", "location", "value", "format", "labels"], "an invariant");
                let Some(v) = self.get(m, "value", "an invariant")? else {
                    return Err(self.err(pos, format!("`{tname}` without `value`")));
                };
                let value = self.text(v, "the invariant `value`")?;
                let kind = match tname {
                    "loop_invariant" => InvariantKind::Loop,
                    "location_invariant" => InvariantKind::Location,
                    "loop_transition_invariant" => InvariantKind::LoopTransition,
                    _ => InvariantKind::LocationTransition,
                };
                push(kind, value);
            }
            "function_contract" => {
                self.check_keys(
                    "Y1",
                    m,
                    &["type", "location", "requires", "ensures", "format", "labels"],
                    "a contract",
                );
                let requires = self.optional_text(m, "requires", "a function contract")?;
                let ensures = self.optional_text(m, "ensures", "a function contract")?;
                for text in [&requires, &ensures].into_iter().flatten() {
                    if text.contains("\\old") || text.contains("\\at") || text.contains("\\valid") {
                        unsupported.push(format!("{pos}: the ACSL construct in `{text}`"));
                        return Ok(());
                    }
                }
                if function.is_none() {
                    return Err(self.err(pos, "a function contract's `location` has no `function`"));
                }
                if let Some(r) = requires {
                    push(InvariantKind::Requires, r);
                }
                if let Some(e) = ensures {
                    push(InvariantKind::Ensures, e);
                }
            }
            other => unsupported.push(format!("{}: invariant type `{other}`", self.pos(t))),
        }
        Ok(())
    }
}
