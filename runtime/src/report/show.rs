//! `hookdex show NAME` as data: the body of the one rule a name designates
//! among those `hookdex list` shows (override key, file name with or
//! without its extension, name part or path, optionally after `LAYER/`).

use serde::Serialize;

use super::listing::find;
use super::{Context, Error};
use crate::load::{self, Verify};

/// The rule `show` found, and its body.
#[derive(Clone, Debug, Serialize)]
pub struct Shown {
    /// Its file.
    pub file: String,
    /// Its layer's label.
    pub layer: String,
    /// Its override key.
    pub key: String,
    /// The file's bytes (as text, invalid UTF-8 replaced, in `--json`).
    #[serde(serialize_with = "lossy")]
    pub body: Vec<u8>,
}

fn lossy<S: serde::Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(body))
}

/// The one rule `name` designates, with its file's bytes.
///
/// # Errors
///
/// When the index is damaged, `name` designates no listed rule or several
/// (the error names each as `LAYER/FILE`, which designates it alone), or
/// the rule's file cannot be read.
pub fn show(cx: &Context<'_>, name: &str) -> Result<Shown, Error> {
    let (file, _) = load::load(&cx.settings.view, Verify::Full);
    let index = file.index()?;
    let found = find(&index, cx.settings, name)?;
    match found.as_slice() {
        [] => Err(Error::NoRule { name: name.into() }),
        [(rule, layer)] => Ok(Shown {
            file: rule.file.into(),
            layer: (*layer).into(),
            key: rule.key.into(),
            body: std::fs::read(rule.file).map_err(|source| Error::Read {
                file: rule.file.into(),
                source,
            })?,
        }),
        many => Err(Error::ManyRules {
            name: name.into(),
            keys: many
                .iter()
                .map(|(rule, layer)| format!("{layer}/{}", rule.file_name()))
                .collect(),
        }),
    }
}
