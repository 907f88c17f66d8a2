package dev.locksmith.tcp.server;

import org.jspecify.annotations.Nullable;

/** A request line the server rejects, answered with {@code <id> ERR <code> <message>}. */
final class ProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  private final @Nullable String requestId;
  private final String code;

  ProtocolException(@Nullable String requestId, String code, String message) {
    super(message, null, false, false);
    this.requestId = requestId;
    this.code = code;
  }

  /** The request's id when the line had a valid one, else {@code null} (the reply uses "*"). */
  @Nullable String requestId() {
    return requestId;
  }

  String code() {
    return code;
  }

  /** The reply line, without the newline. */
  String replyLine() {
    return (requestId == null ? "*" : requestId) + " ERR " + code + " " + getMessage();
  }
}
