package dev.locksmith.tcp.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A shared secret, kept only as its SHA-256 digest and compared in constant time: both sides are
 * hashed to the same length first, then compared with {@link MessageDigest#isEqual}, so neither the
 * length nor a matching prefix shows in the timing.
 */
final class Secret {
  private final byte[] digest;

  /**
   * Keeps the secret's digest; surrounding whitespace is stripped, as the client strips its secret
   * and an {@code AUTH} line cannot carry it.
   *
   * @throws IllegalArgumentException when the secret is empty or only whitespace, or holds a line
   *     break or another control character
   */
  Secret(String secret) {
    String text = secret.strip();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("the shared secret is empty or only whitespace");
    }
    if (text.chars().anyMatch(Character::isISOControl)) {
      // Never quoted: a part of it would show in the message.
      throw new IllegalArgumentException(
          "the shared secret holds a line break or another control character, which an AUTH"
              + " line cannot carry; write it on one line");
    }
    this.digest = sha256(text);
  }

  /**
   * Reads the secret from a file; surrounding whitespace and newlines are stripped.
   *
   * @throws IOException when the file cannot be read, holds only whitespace, or holds a line break
   *     or another control character within the secret
   */
  static Secret read(Path file) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (text.isBlank()) {
      throw new IOException("secret file " + file + " is empty");
    }
    try {
      return new Secret(text);
    } catch (IllegalArgumentException e) {
      throw new IOException("secret file " + file + ": " + e.getMessage(), e);
    }
  }

  boolean matches(String candidate) {
    return MessageDigest.isEqual(digest, sha256(candidate));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "Secret[****]";
  }
}
