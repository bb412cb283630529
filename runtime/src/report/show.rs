//! `hookdex show NAME` as data: the body of the one active rule a name
//! designates (override key, file name, name part or path).

use super::listing::find;
use super::{Context, Error};
use crate::load::{self, Verify};

/// The bytes of the file of the one active rule `name` designates.
///
/// # Errors
///
/// When the index is damaged, `name` designates no active rule or several,
/// or the rule's file cannot be read.
pub fn show(cx: &Context<'_>, name: &str) -> Result<Vec<u8>, Error> {
    let (file, _) = load::load(&cx.settings.view, Verify::Full);
    let index = file.index()?;
    let found = find(&index, cx.settings, name)?;
    match found.as_slice() {
        [] => Err(Error::NoRule { name: name.into() }),
        [rule] => std::fs::read(rule.file).map_err(|source| Error::Read {
            file: rule.file.into(),
            source,
        }),
        many => Err(Error::ManyRules {
            name: name.into(),
            keys: many.iter().map(|r| r.key.to_string()).collect(),
        }),
    }
}
