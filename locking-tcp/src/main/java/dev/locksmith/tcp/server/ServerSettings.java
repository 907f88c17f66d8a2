package dev.locksmith.tcp.server;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Everything a {@link LockServer} is configured with; see {@link LockServer.Builder}. */
record ServerSettings(
    int port,
    String bind,
    @Nullable Path dataDir,
    @Nullable Secret secret,
    @Nullable Path tlsCert,
    @Nullable Path tlsKey,
    int maxLineLength,
    int maxKeyBytes,
    int maxConnections,
    int maxWaitersPerLock,
    int maxLocksPerConnection,
    int maxErrors,
    Duration idleTimeout,
    int workerThreads,
    long fencingBlock) {}
