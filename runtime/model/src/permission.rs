//! Permission decisions and their precedence.

/// A permission decision, ordered by precedence: deny > ask > allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    /// Let the call run without asking.
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Permission {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        }
    }

    /// A decision as a condition may write it (`approve` and `block` are the
    /// older spellings), case-insensitively.
    pub fn parse(text: &str) -> Option<Permission> {
        match text.trim().to_ascii_lowercase().as_str() {
            "allow" | "approve" => Some(Permission::Allow),
            "ask" => Some(Permission::Ask),
            "deny" | "block" => Some(Permission::Deny),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        assert!(Permission::Deny > Permission::Ask && Permission::Ask > Permission::Allow);
        assert_eq!(Permission::parse(" Block "), Some(Permission::Deny));
        assert_eq!(Permission::parse("maybe"), None);
    }
}
