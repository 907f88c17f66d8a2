package dev.locksmith.tcp.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Sets up each accepted connection: the {@link TlsGate} (and TLS when configured), flush
 * consolidation, the idle timer, the {@link LineDeadline}, the line decoder and the protocol
 * handler.
 */
final class ServerPipeline extends ChannelInitializer<SocketChannel> {
  private final ServerRuntime server;
  private final ServerSettings settings;
  private final @Nullable SslContext ssl;
  private final RequestParser parser;

  ServerPipeline(ServerRuntime server, ServerSettings settings, @Nullable SslContext ssl) {
    this.server = server;
    this.settings = settings;
    this.ssl = ssl;
    this.parser = new RequestParser(settings.maxKeyBytes());
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ChannelPipeline p = ch.pipeline();
    LineDeadline deadline = new LineDeadline(settings.lineTimeout().toNanos());
    if (ssl != null) {
      p.addLast("raw-deadline", deadline.rawSide());
    }
    p.addLast("tls-gate", new TlsGate(ssl));
    // Replies written from the core thread arrive as separate writes; flush them together.
    p.addLast("flush", new FlushConsolidationHandler(256, true));
    p.addLast(
        "idle",
        new IdleStateHandler(settings.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
    p.addLast("line-deadline", deadline);
    RequestLineDecoder lines = new RequestLineDecoder(settings.maxLineLength());
    p.addLast("lines", lines);
    p.addLast("protocol", new ServerHandler(server, settings, parser, lines));
  }
}
