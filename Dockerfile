# Builds the two binaries, `ledger` and `workers`, into one small image.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --bins

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/ledger /src/target/release/workers /usr/local/bin/
USER nobody
EXPOSE 8080
CMD ["ledger", "serve"]
