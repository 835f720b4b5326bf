# easyai's release image: the static binary alone, as the entrypoint. A
# schedule's launcher pod runs it ("easyai cron launch", docs/cron.md).
# GoReleaser builds it for each platform (.goreleaser.yaml, dockers_v2),
# with the binary of that platform under $TARGETPLATFORM/ in the context.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/easyai /usr/bin/easyai
ENTRYPOINT ["/usr/bin/easyai"]
