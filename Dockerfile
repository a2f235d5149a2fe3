# Builds the two binaries, `ledger` and `workers`, into one small image.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# Exactly the shipped binaries, with their own features: never the tests
# crate, whose test-only features Cargo would unify into them (scripts/shipped).
RUN cargo build --release -p ledger -p workers

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/ledger /src/target/release/workers /usr/local/bin/
USER nobody
EXPOSE 8080
CMD ["ledger", "serve"]
