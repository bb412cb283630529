//! A call described by flags (`--tool`, `--command`, `--path`, `--input`,
//! `--step`), as `list` and `explain` ask about it: its tool input, the
//! call the hook would see, where its texts land, and what its hooks match
//! on besides the query.

use std::ffi::OsString;

use hookdex_harness::{McpScope, Payload};
use hookdex_model::Step;
use serde_json::{json, Value};

use super::Error;
use crate::call::Call;
use crate::load;
use crate::settings::Settings;
use crate::state::breaker::Breakers;

/// A call described by `--tool`, `--command`, `--path`, `--input` and `--step`.
#[derive(Clone, Debug)]
pub struct CallSpec {
    /// Tool name as the harness spells it.
    pub tool: String,
    /// Shell command.
    pub command: Option<String>,
    /// File path.
    pub path: Option<String>,
    /// Whole tool input (a JSON object).
    pub input: Option<Value>,
    /// Step.
    pub step: Step,
}

impl CallSpec {
    /// The tool input these flags describe: `--input` with `--command` as
    /// `command` and `--path` as `file_path`.
    ///
    /// # Errors
    ///
    /// When `--input` is not a JSON object.
    pub fn input(&self) -> Result<Value, Error> {
        let mut input = self.input.clone().unwrap_or_else(|| json!({}));
        let Some(object) = input.as_object_mut() else {
            return Err(Error::InputNotObject);
        };
        if let Some(command) = &self.command {
            object.insert("command".into(), json!(command));
        }
        if let Some(path) = &self.path {
            object.insert("file_path".into(), json!(path));
        }
        Ok(input)
    }

    /// What the call's hooks match on besides the query: its event (the
    /// step's own), `input` and the environment `var` reads.
    pub fn probe<'a>(
        &self,
        settings: &Settings,
        input: &'a Value,
        var: &'a dyn Fn(&str) -> Option<OsString>,
    ) -> super::HookProbe<'a> {
        super::HookProbe {
            event: self.step.event(),
            tool_input: input,
            breakers: Breakers::new(&settings.view.home, settings.breaker_cooldown),
            var,
        }
    }

    /// Where the call's texts land, as a filter's `paths` see them: each
    /// text's file (a patch's files, each), or the `--path` given when the
    /// input offers no text.
    ///
    /// # Errors
    ///
    /// When `--input` is not a JSON object.
    pub fn landing(&self, call: &Call) -> Result<Vec<Option<String>>, Error> {
        let landing = crate::filters::text::landing(&call.tool.name, &self.input()?);
        Ok(if landing.is_empty() {
            vec![call.path.clone()]
        } else {
            landing
        })
    }

    /// The call, normalized for the target of `settings`: a harness's own
    /// spelling of an MCP tool is resolved against its settings as the hook
    /// would, with the environment `var` reads.
    ///
    /// # Errors
    ///
    /// When `--input` is not a JSON object, or the harness cannot read the
    /// call.
    pub fn call(
        &self,
        settings: &Settings,
        var: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<Call, Error> {
        let target = settings.view.target;
        let input = self.input()?;
        let event = self.step.event();
        if !event.is_tool_event() {
            return Ok(Call::new(target, self.step, &self.tool, &input));
        }
        let payload =
            json!({"hook_event_name": event.as_str(), "tool_name": self.tool, "tool_input": input});
        let payload =
            Payload::parse(target, payload.to_string().as_bytes(), None).map_err(Error::Payload)?;
        let trusted = || load::repository_trusted(settings);
        let scope = McpScope {
            cwd: &settings.exec.cwd,
            var,
            project_trusted: &trusted,
        };
        Ok(Call::of(target, &payload, &scope))
    }
}
