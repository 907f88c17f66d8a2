package dev.locksmith.tcp.server;

import io.netty.buffer.ByteBuf;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The text of one connection's request lines: plain ASCII (the usual case) without a decoder,
 * anything else as strict UTF-8; a trailing CR is dropped. Event loop only.
 */
final class LineText {
  private final CharsetDecoder utf8 =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  /**
   * The line in {@code frame} (without its newline), without a trailing CR.
   *
   * @throws ProtocolException when the line is not valid UTF-8
   */
  String of(ByteBuf frame) throws ProtocolException {
    String line = decode(frame);
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  private String decode(ByteBuf frame) throws ProtocolException {
    int length = frame.readableBytes();
    if (frame.forEachByte(b -> b >= 0) < 0) {
      // No array kept per connection: one long line would pin its size for the connection's life.
      return frame.toString(frame.readerIndex(), length, StandardCharsets.ISO_8859_1);
    }
    try {
      return utf8.reset().decode(frame.nioBuffer()).toString();
    } catch (CharacterCodingException e) {
      throw new ProtocolException(
          RequestLineDecoder.requestId(frame), "SYNTAX", "line is not valid UTF-8");
    }
  }
}
