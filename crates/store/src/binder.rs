//! The parameters of a statement assembled at run time, numbered as they are bound: each part
//! of the statement binds the values it needs and writes the placeholder it is given, so no
//! parameter number is ever written by hand or passed between functions.
//!
//! Invariant: a placeholder names the value it was bound with, in the arguments the binder
//! hands to `sqlx::query_with`; a value bound once may be named by any number of parts.

use std::fmt;

use sqlx::postgres::PgArguments;
use sqlx::{Arguments, Encode, Postgres, Type};

use super::StoreError;

/// A bound value's placeholder (`$n`), as the statement's text names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param(String);

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The arguments of one statement, bound in the order the statement is written.
#[derive(Default)]
pub struct Binder {
    arguments: PgArguments,
    count: usize,
    /// The first value that did not encode: reported when the arguments are taken.
    failed: Option<sqlx::error::BoxDynError>,
}

impl Binder {
    pub fn new() -> Binder {
        Binder::default()
    }

    /// Binds `value` as the statement's next parameter and gives its placeholder.
    pub fn bind<'q, T: Encode<'q, Postgres> + Type<Postgres> + 'q>(&mut self, value: T) -> Param {
        if let Err(error) = self.arguments.add(value) {
            self.failed.get_or_insert(error);
        }
        self.count += 1;
        Param(format!("${}", self.count))
    }

    /// The arguments bound, for `sqlx::query_with`.
    ///
    /// # Errors
    /// When a value did not encode.
    pub fn into_arguments(self) -> Result<PgArguments, StoreError> {
        match self.failed {
            Some(error) => Err(StoreError::Database(sqlx::Error::Encode(error))),
            None => Ok(self.arguments),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Binder;

    #[test]
    fn each_value_bound_is_numbered_in_turn_and_named_again_as_often_as_asked() {
        let mut binder = Binder::new();
        let table = binder.bind(7_i64);
        let seq = binder.bind("x");
        assert_eq!((table.to_string(), seq.to_string()), ("$1".to_owned(), "$2".to_owned()));
        assert_eq!(format!("{table} = {table}"), "$1 = $1");
        assert!(binder.into_arguments().is_ok());
    }
}
