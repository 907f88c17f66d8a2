package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Lines as the protocol handler gets them, whatever pieces the bytes arrive in. */
class RequestLineDecoderTest {
  private static final int MAX = 16;

  private final RequestLineDecoder decoder = new RequestLineDecoder(MAX);
  private final EmbeddedChannel channel = new EmbeddedChannel(decoder);

  @AfterEach
  void finish() {
    channel.finishAndReleaseAll();
  }

  @Test
  void splitsLinesWhateverPiecesTheyArriveIn() {
    write("1 PING\n2 PI");
    write("NG\r");
    write("\n\n3 STATUS a\r\n");
    assertThat(lines()).containsExactly("1 PING", "2 PING", "", "3 STATUS a");
  }

  @Test
  void linesNearTheLimitArrivingOverManyReadsKeepTheBufferNearTheLimit() {
    int limit = 256 * 1024;
    EmbeddedChannel longLines = new EmbeddedChannel(new RequestLineDecoder(limit));
    RequestLineDecoder decoder = longLines.pipeline().get(RequestLineDecoder.class);
    // A valid PING, padded with spaces to just under the limit, again and again, in 64 KiB reads.
    byte[] line = ("1 PING" + " ".repeat(262_100 - 7) + "\n").getBytes(StandardCharsets.US_ASCII);
    int read = 64 * 1024;
    int offset = 0;
    int peak = 0;
    int lines = 0;
    for (int reads = 0; reads < 200; reads++) {
      ByteBuf bytes = Unpooled.buffer(read);
      while (bytes.isWritable()) {
        int n = Math.min(bytes.writableBytes(), line.length - offset);
        bytes.writeBytes(line, offset, n);
        offset = (offset + n) % line.length;
      }
      longLines.writeInbound(bytes);
      ByteBuf out;
      while ((out = longLines.readInbound()) != null) {
        lines++;
        out.release();
      }
      peak = Math.max(peak, decoder.bufferCapacity());
    }
    longLines.finishAndReleaseAll();
    assertThat(lines).isEqualTo(200 * read / line.length);
    // The limit and one read, rounded up to a power of two as the buffer grows.
    assertThat(peak).as("largest buffer capacity").isLessThanOrEqualTo(512 * 1024);
  }

  @Test
  void aLineOfTheLimitPassesWithEitherNewline() {
    String line = "1 STATUS " + "a".repeat(MAX - 9);
    write(line + "\r\n" + line + "\n" + line + "\r");
    write("\n");
    assertThat(lines()).containsExactly(line, line, line);
  }

  @Test
  void aLongerLineIsRefusedUnderItsRequestIdAndTheNextLineIsRead() {
    write("7 STATUS " + "a".repeat(MAX) + "\n8 PING\n");
    assertThat(outputs()).containsExactly("7 ERR LINE_TOO_LONG", "8 PING");
  }

  @Test
  void aLongerLineStillComingIsRefusedOnceAndDiscardedToItsNewline() {
    write("tag-1 STATUS " + "a".repeat(MAX));
    write("b".repeat(3 * MAX));
    write("c".repeat(MAX) + "\n9 PING\n");
    assertThat(outputs()).containsExactly("tag-1 ERR LINE_TOO_LONG", "9 PING");
  }

  @Test
  void aLongerLineWithoutAValidRequestIdIsRefusedUntagged() {
    write("x".repeat(40) + "\n" + "!! " + "y".repeat(MAX) + "\n");
    assertThat(outputs()).containsExactly("* ERR LINE_TOO_LONG", "* ERR LINE_TOO_LONG");
  }

  @Test
  void aPausedDecoderSplitsNoLineUntilResumed() {
    decoder.pause();
    write("1 PING\n2 PING\n3 STA");
    write("TUS a\n");
    assertThat(lines()).isEmpty();

    assertThat(decoder.resume()).as("was paused").isTrue();
    assertThat(lines()).containsExactly("1 PING", "2 PING", "3 STATUS a");
    assertThat(decoder.resume()).as("was not paused").isFalse();
  }

  @Test
  void resumedItHandsOnLinesUntilPausedAgain() {
    Received received = new Received(decoder, 1);
    channel.pipeline().addLast(received);
    write("1 PING\n2 PING\n3 PING\n");
    assertThat(received.events).containsExactly("1 PING");

    decoder.resume();
    assertThat(received.events).containsExactly("1 PING", "2 PING");
    decoder.resume();
    decoder.resume();
    assertThat(received.events).containsExactly("1 PING", "2 PING", "3 PING");
  }

  @Test
  void pausedAndResumedWhileItHandsOnALineItGoesOnWithTheSameRead() {
    // As when a core batch runs inline on the event loop and its write changes the writability.
    List<String> events = new ArrayList<>();
    channel
        .pipeline()
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf line = (ByteBuf) msg;
                events.add(line.toString(StandardCharsets.US_ASCII));
                line.release();
                if (events.size() == 2) {
                  decoder.pause();
                  assertThat(decoder.resume()).as("was paused").isTrue();
                }
              }
            });
    write("1 PING\n2 PING\n3 PING\n");
    channel.checkException();
    write("4 PING\n");
    assertThat(events).containsExactly("1 PING", "2 PING", "3 PING", "4 PING");
  }

  @Test
  void theEndOfInputIsPassedOnAfterTheLinesReadBeforeIt() {
    Received received = new Received(decoder, 0);
    channel.pipeline().addLast(received);
    decoder.pause();
    write("1 PING\n2 PING\n");
    channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
    assertThat(received.events).as("held back while paused").isEmpty();

    decoder.resume();
    assertThat(received.events).containsExactly("1 PING", "2 PING", "end of input");
  }

  /** Records what reaches the protocol handler's place; pauses the decoder after some lines. */
  private static final class Received extends ChannelInboundHandlerAdapter {
    private final List<String> events = new ArrayList<>();
    private final RequestLineDecoder decoder;
    private final int pauseEvery;

    Received(RequestLineDecoder decoder, int pauseEvery) {
      this.decoder = decoder;
      this.pauseEvery = pauseEvery;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf line = (ByteBuf) msg;
      events.add(line.toString(StandardCharsets.US_ASCII));
      line.release();
      if (pauseEvery > 0 && events.size() % pauseEvery == 0) {
        decoder.pause();
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ChannelInputShutdownEvent) {
        events.add("end of input");
      }
    }
  }

  private void write(String text) {
    channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
  }

  private List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (Object out : drain()) {
      lines.add(String.valueOf(out));
    }
    return lines;
  }

  /** Lines, and refusals as the start of their reply line. */
  private List<String> outputs() {
    List<String> outputs = new ArrayList<>();
    for (Object out : drain()) {
      outputs.add(
          out instanceof ProtocolException e
              ? e.replyLine().substring(0, e.replyLine().indexOf(" line longer"))
              : String.valueOf(out));
    }
    return outputs;
  }

  private List<Object> drain() {
    List<Object> outputs = new ArrayList<>();
    Object out;
    while ((out = channel.readInbound()) != null) {
      if (out instanceof ByteBuf line) {
        outputs.add(line.toString(StandardCharsets.US_ASCII));
        line.release();
      } else {
        outputs.add(out);
      }
    }
    return outputs;
  }
}
