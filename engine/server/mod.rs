//! `specrt serve`: an OpenAI-compatible HTTP server (tokio + axum) over one or more pipelines.
//!
//! The async runtime only parses, routes and streams. Inference runs on dedicated worker threads
//! ([`worker`]): each served pipeline has a bounded queue and `workers` threads, each owning its own loaded
//! [`Pipeline`](crate::Pipeline). A full queue answers 429 with `Retry-After`; a request past
//! `request_timeout_seconds` is cancelled (504); a client that disconnects cancels its generation; a panic in a
//! generation answers 500 and the worker goes on. Connections are accepted and timed by [`conn`] (header-read,
//! idle and body timeouts, a connection cap). See docs/SERVER.md.
//!
//! Files: `lifecycle` (start, serve, shutdown), `state` (what handlers share; the shutdown steps), `routes` (the
//! router and small endpoints), `generation` (the generation endpoints' request path), `events` (waiting for a
//! worker's events; cancel on disconnect), `sse` (streaming), `body` (body limits), `translate` (NAT pipelines over
//! HTTP), plus the public modules below (`batcher`: dynamic batching of NAT requests; `log`: the request log).

pub mod api;
pub mod client;
pub mod config;
pub mod conn;
pub(crate) mod job;
pub mod metrics;
pub(crate) mod queue;
pub mod worker;

pub mod batcher;
pub mod log;

mod body;
pub mod cancel;
mod events;
mod generation;
mod handler;
mod lifecycle;
mod routes;
mod sse;
mod state;
mod translate;

pub use config::ServerConfig;
pub use lifecycle::{run, start, ServerHandle, ServerOptions};
pub use log::LogFormat;
