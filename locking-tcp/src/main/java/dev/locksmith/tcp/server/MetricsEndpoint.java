package dev.locksmith.tcp.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus endpoint: {@code GET /metrics} in the text exposition format, served by the JDK's
 * HTTP server on one daemon thread. Read-only, no authentication: it binds to loopback unless told
 * otherwise.
 */
final class MetricsEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

  private final HttpServer http;
  private final ExecutorService executor;

  private MetricsEndpoint(HttpServer http, ExecutorService executor) {
    this.http = http;
    this.executor = executor;
  }

  /** Binds and starts serving. */
  static MetricsEndpoint start(String bind, int port, ServerMetrics metrics) throws IOException {
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(bind, port), 16);
    } catch (IOException e) {
      throw new IOException(
          "cannot bind the metrics endpoint to " + bind + ":" + port + ": " + e, e);
    }
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "locksmith-server-metrics");
              thread.setDaemon(true);
              return thread;
            });
    http.setExecutor(executor);
    http.createContext("/", exchange -> serve(exchange, metrics));
    http.start();
    LOG.info("Lock server metrics on http://{}:{}/metrics", bind, http.getAddress().getPort());
    return new MetricsEndpoint(http, executor);
  }

  private static void serve(HttpExchange exchange, ServerMetrics metrics) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      boolean get = exchange.getRequestMethod().equals("GET");
      boolean head = exchange.getRequestMethod().equals("HEAD");
      if (!path.equals("/metrics")) {
        reply(exchange, 404, "not found; the metrics are at /metrics\n", get);
      } else if (!get && !head) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        reply(exchange, 405, "only GET\n", true);
      } else {
        exchange
            .getResponseHeaders()
            .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        reply(exchange, 200, metrics.prometheus(), get);
      }
    }
  }

  private static void reply(HttpExchange exchange, int status, String text, boolean body)
      throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, body ? bytes.length : -1);
    if (body) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The bound port. */
  int port() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdown();
    try {
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
