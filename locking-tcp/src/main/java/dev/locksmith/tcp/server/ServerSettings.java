package dev.locksmith.tcp.server;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Everything a {@link LockServer} is configured with; see {@link LockServerBuilder}.
 *
 * @param metricsPort the Prometheus endpoint's port, 0 for any free one, -1 for none
 */
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
    int maxUnauthenticated,
    int maxUnauthenticatedPerAddress,
    int maxConnectionsPerAddress,
    int maxWaitersPerLock,
    int maxLocksPerConnection,
    int maxDetachedLeases,
    int maxErrors,
    Duration idleTimeout,
    Duration authTimeout,
    Duration lineTimeout,
    int workerThreads,
    long fencingBlock,
    Duration maxRestartWait,
    int metricsPort,
    String metricsBind) {}
