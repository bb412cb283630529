//! The filter engine: finders, the classifier, actions, rounds. A filter
//! flags spans of the text a tool call would write, asks the
//! [`classifier`] to judge each finding against the filter's intent, and
//! sends the text back, strips the spans or flags them. So far only the
//! classifier is here.

pub mod classifier;
