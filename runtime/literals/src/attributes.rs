//! Which attribute values people read, for HTML, Vue and Svelte templates
//! and JSX alike.
//!
//! On a native element (`<img>`, `<button>`) the HTML attributes a browser
//! shows or speaks: `title`, `alt`, `placeholder`, `label`, the readable
//! `aria-*` ones, and `value` on button-like inputs (not on text inputs: a prefilled value is
//! data). A component
//! (`<Toast>`, `<ui.Card>`, `<my-alert>`) names its own props, so there every
//! value counts except the props known to be machine-read (`class`, `href`,
//! `id`, `data-*`, `on*`, …).

/// Attributes of native elements that people read.
const READ: &[&str] = &[
    "title",
    "alt",
    "placeholder",
    "label",
    "aria-label",
    "aria-description",
    "aria-roledescription",
    "aria-valuetext",
    "aria-placeholder",
];

/// Props of components that only code reads.
const MACHINE: &[&str] = &[
    "as",
    "class",
    "classname",
    "color",
    "d",
    "dir",
    "fill",
    "for",
    "height",
    "href",
    "htmlfor",
    "id",
    "key",
    "lang",
    "method",
    "action",
    "name",
    "ref",
    "rel",
    "role",
    "size",
    "slot",
    "src",
    "srcset",
    "stroke",
    "style",
    "tabindex",
    "target",
    "to",
    "type",
    "value",
    "variant",
    "viewbox",
    "width",
    "xmlns",
];

/// The attributes of one opening tag, read one by one: whether each value
/// is text people read. A native `value` waits for the tag's end, since its
/// `type` may come after it.
pub(crate) struct Tag<'t> {
    element: &'t [u8],
    value: Option<(usize, usize)>,
    input_type: &'t [u8],
}

impl<'t> Tag<'t> {
    pub(crate) fn new(element: &'t [u8]) -> Self {
        Tag {
            element,
            value: None,
            input_type: b"",
        }
    }

    /// Whether the value `span` (its text `value`) of `attribute` is read by people.
    pub(crate) fn readable(
        &mut self,
        attribute: &[u8],
        span: (usize, usize),
        value: &'t [u8],
    ) -> bool {
        let Ok(attribute) = std::str::from_utf8(attribute) else {
            return false;
        };
        let in_list = |list: &[&str]| list.iter().any(|a| a.eq_ignore_ascii_case(attribute));
        if is_component(self.element) {
            let prefixed = |prefix: &str| {
                attribute.len() > prefix.len()
                    && attribute.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
            };
            let event = prefixed("on") && attribute.as_bytes()[2].is_ascii_uppercase();
            let machine_aria = prefixed("aria-") && !in_list(READ);
            return !(in_list(MACHINE)
                || prefixed("data-")
                || event
                || machine_aria
                || attribute.contains(':'));
        }
        if attribute.eq_ignore_ascii_case("type") {
            self.input_type = value;
        } else if attribute.eq_ignore_ascii_case("value") {
            self.value = Some(span);
        }
        in_list(READ)
    }

    /// The `value` to report now that the tag is read: on `<input>` of type
    /// `submit`, `button` or `reset`, where it is the button's label.
    pub(crate) fn finish(self) -> Option<(usize, usize)> {
        let shown = [&b"submit"[..], b"button", b"reset"]
            .iter()
            .any(|t| t.eq_ignore_ascii_case(self.input_type));
        self.value
            .filter(|_| self.element.eq_ignore_ascii_case(b"input") && shown)
    }
}

/// A component rather than a native element: capitalised, dotted or a custom element name.
fn is_component(element: &[u8]) -> bool {
    element.first().is_some_and(u8::is_ascii_uppercase)
        || element.contains(&b'.')
        || element.contains(&b'-')
}
