package dev.locksmith.tcp.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus endpoint: {@code GET /metrics} in the text exposition format, one request per
 * connection, served on one event-loop thread of its own. Nothing a scraper does blocks it: a
 * connection is closed {@link #REQUEST_TIMEOUT_SECONDS} after it opened, answered or not (a request
 * trickled in byte by byte too), a request larger than {@link #MAX_REQUEST_BYTES} is refused, and
 * at most {@link #MAX_CONNECTIONS} connections are open at once (others are closed at once).
 * Read-only, no authentication: it binds to loopback unless told otherwise.
 */
final class MetricsEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

  /** How long a connection has to send its whole request. */
  static final int REQUEST_TIMEOUT_SECONDS = 10;

  /** The largest request taken: a scrape is a request line and a few headers. */
  static final int MAX_REQUEST_BYTES = 16 * 1024;

  /** How many connections may be open at once. */
  static final int MAX_CONNECTIONS = 64;

  private final EventLoopGroup group;
  private final Channel channel;

  private MetricsEndpoint(EventLoopGroup group, Channel channel) {
    this.group = group;
    this.channel = channel;
  }

  /** Binds and starts serving. */
  static MetricsEndpoint start(String bind, int port, ServerMetrics metrics) throws IOException {
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory("locksmith-server-metrics", true),
            NioIoHandler.newFactory());
    AtomicInteger open = new AtomicInteger();
    Channel channel;
    try {
      channel =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      if (open.incrementAndGet() > MAX_CONNECTIONS) {
                        open.decrementAndGet();
                        ch.close();
                        return;
                      }
                      // Closed at its deadline however its bytes come.
                      ScheduledFuture<?> deadline =
                          ch.eventLoop()
                              .schedule(
                                  () -> ch.close(), REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                      ch.closeFuture()
                          .addListener(
                              closed -> {
                                open.decrementAndGet();
                                deadline.cancel(false);
                              });
                      ch.pipeline()
                          .addLast(new HttpServerCodec())
                          .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                          .addLast(new Scrape(metrics));
                    }
                  })
              .bind(new InetSocketAddress(bind, port))
              .sync()
              .channel();
    } catch (InterruptedException e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding the metrics endpoint", e);
    } catch (Exception e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw new IOException(
          "cannot bind the metrics endpoint to " + bind + ":" + port + ": " + e, e);
    }
    MetricsEndpoint endpoint = new MetricsEndpoint(group, channel);
    LOG.info("Lock server metrics on http://{}:{}/metrics", bind, endpoint.port());
    return endpoint;
  }

  /** Answers one request and closes the connection. */
  private static final class Scrape extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final ServerMetrics metrics;

    Scrape(ServerMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      FullHttpResponse response;
      HttpMethod method = request.method();
      boolean head = method.equals(HttpMethod.HEAD);
      if (!request.decoderResult().isSuccess()) {
        response = text(HttpResponseStatus.BAD_REQUEST, "bad request\n", true);
      } else if (!new QueryStringDecoder(request.uri()).path().equals("/metrics")) {
        response =
            text(HttpResponseStatus.NOT_FOUND, "not found; the metrics are at /metrics\n", !head);
      } else if (!method.equals(HttpMethod.GET) && !head) {
        response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET\n", true);
        response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      } else {
        response = text(HttpResponseStatus.OK, metrics.prometheus(), !head);
        response
            .headers()
            .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
      }
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // A timed-out, reset or oversized request: only that connection goes.
      LOG.debug("Metrics connection closed: {}", cause.toString());
      ctx.close();
    }

    /** A response with {@code text} as its body, or only its length when {@code body} is false. */
    private static FullHttpResponse text(HttpResponseStatus status, String text, boolean body) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      FullHttpResponse response =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              status,
              body ? Unpooled.wrappedBuffer(bytes) : Unpooled.EMPTY_BUFFER);
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
      return response;
    }
  }

  /** The bound port. */
  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
  }
}
