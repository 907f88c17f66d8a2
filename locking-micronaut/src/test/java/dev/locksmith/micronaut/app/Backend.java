package dev.locksmith.micronaut.app;

import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A real lock store for the shutdown tests: a redis-server of its own, the TCP lock server in this
 * JVM, or a lock directory; and how the application reaches it.
 */
final class Backend implements AutoCloseable {
  /** The stores. */
  enum Kind {
    /** {@code locksmith.url=redis://...}. */
    REDIS,
    /** The application's own RedissonClient bean. */
    REDISSON,
    /** {@code locksmith.url=tcp://...}, the lock server. */
    TCP,
    /** {@code locksmith.url=file:...}, a lock directory. */
    FILE
  }

  private final Kind kind;
  private final String url;
  private final AutoCloseable resource;

  private Backend(Kind kind, String url, AutoCloseable resource) {
    this.kind = kind;
    this.url = url;
    this.resource = resource;
  }

  /** Starts the store. */
  static Backend start(Kind kind) throws IOException {
    return switch (kind) {
      case REDIS, REDISSON -> {
        RedisServerProcess redis = TestRedis.startDedicated();
        yield new Backend(kind, redis.url(), redis);
      }
      case TCP -> {
        LockServer server = LockServer.builder().port(0).build();
        int port = server.start();
        yield new Backend(kind, "tcp://127.0.0.1:" + port, server);
      }
      case FILE -> {
        Path dir = Files.createTempDirectory("locksmith-micronaut-handover");
        yield new Backend(kind, dir.toUri().toString(), () -> {});
      }
    };
  }

  /** The URL another client uses. */
  String url() {
    return url;
  }

  /** The application's environments, {@code extra} first. */
  String[] environments(String extra) {
    return kind == Kind.REDISSON ? new String[] {extra, "app-redisson"} : new String[] {extra};
  }

  /** The application's properties that point it at the store. */
  Map<String, String> properties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(kind == Kind.REDISSON ? "app.redis.url" : "locksmith.url", url);
    return properties;
  }

  @Override
  public void close() {
    try {
      resource.close();
    } catch (Exception e) {
      throw new UncheckedIOException(new IOException("cannot stop " + kind, e));
    }
  }
}
