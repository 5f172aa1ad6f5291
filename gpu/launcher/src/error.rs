//! The one error type of `gpu-bench`: a message that `main` prints as one line after
//! `gpu-bench: `, and the conversions from CUDA's errors (by name) and from panics.

use cudarc::cublas::result::CublasError;
use cudarc::driver::DriverError;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why `gpu-bench` stops: bad input, a CUDA error, or a failed check. Always one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    /// An error with this message (newlines are folded into spaces when printed).
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }

    /// The message.
    #[cfg(test)]
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = self.0.split_whitespace();
        if let Some(first) = words.next() {
            f.write_str(first)?;
        }
        words.try_for_each(|w| write!(f, " {w}"))
    }
}

impl From<const_layout_launch::LaunchError> for Error {
    fn from(e: const_layout_launch::LaunchError) -> Self {
        Error::new(e.to_string())
    }
}

/// The name of a CUDA driver error, `CUDA_ERROR_...` (from the enum, without calling the driver).
pub fn driver_error_name(e: &DriverError) -> String {
    format!("{:?}", e.0)
}

/// Adds what was being done to a CUDA error: `what: CUDA_ERROR_...`.
pub trait Context<T> {
    /// The error as `what: NAME`.
    fn context(self, what: impl fmt::Display) -> Result<T, Error>;
}

impl<T> Context<T> for Result<T, DriverError> {
    fn context(self, what: impl fmt::Display) -> Result<T, Error> {
        self.map_err(|e| Error::new(format!("{what}: {}", driver_error_name(&e))))
    }
}

impl<T> Context<T> for Result<T, CublasError> {
    fn context(self, what: impl fmt::Display) -> Result<T, Error> {
        self.map_err(|e| Error::new(format!("{what}: {:?}", e.0)))
    }
}

/// Runs `f`, turning a panic (of a library: `gpu-bench` itself does not panic) into an error.
/// `main` installs a silent panic hook, so nothing is printed on the way.
pub fn guard<T>(what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Error::new(format!("{what}: {text}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_print_on_one_line() {
        let e = Error::new("first\nsecond  third\n");
        assert_eq!(e.to_string(), "first second third");
    }

    #[test]
    fn driver_errors_are_named() {
        let e: Result<(), DriverError> =
            Err(DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_PTX));
        assert_eq!(
            e.context("loading x.ptx").unwrap_err().message(),
            "loading x.ptx: CUDA_ERROR_INVALID_PTX"
        );
    }

    #[test]
    fn panics_become_errors() {
        // (The default hook prints the panic to the test's output; the result is what counts.)
        let r: Result<(), Error> = guard("cuBLAS", || panic!("Missing symbol {}", "cublasCreate_v2"));
        assert_eq!(r.unwrap_err().message(), "cuBLAS: Missing symbol cublasCreate_v2");
    }
}
