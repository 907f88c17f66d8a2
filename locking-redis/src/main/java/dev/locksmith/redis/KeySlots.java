package dev.locksmith.redis;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key slots, computed here as the server does, so that the provider knows before
 * sending a script whether its keys may go into one: {@code CRC16(tag) mod 16384}, where the tag is
 * the part of the key between its first <code>{</code> and the first <code>}</code> after it when
 * that part is not empty, else the whole key (CRC16 as XMODEM: polynomial 0x1021, initial 0).
 */
final class KeySlots {
  /** How many slots a Redis Cluster has. */
  static final int SLOTS = 16_384;

  private KeySlots() {}

  /** The slot of {@code key}, as {@code CLUSTER KEYSLOT} answers. */
  static int slot(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int start = 0;
    int end = bytes.length;
    int open = indexOf(bytes, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(bytes, (byte) '}', open + 1);
      if (close > open + 1) {
        start = open + 1;
        end = close;
      }
    }
    return crc16(bytes, start, end) & (SLOTS - 1);
  }

  private static int indexOf(byte[] bytes, byte wanted, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  private static int crc16(byte[] bytes, int start, int end) {
    int crc = 0;
    for (int i = start; i < end; i++) {
      crc ^= (bytes[i] & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
    }
    return crc & 0xFFFF;
  }
}
