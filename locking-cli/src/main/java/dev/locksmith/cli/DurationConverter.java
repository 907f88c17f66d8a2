package dev.locksmith.cli;

import dev.locksmith.core.Durations;
import java.time.Duration;
import picocli.CommandLine;

/**
 * Reads {@code 500ms}, {@code 10s}, {@code 5m} or ISO-8601 durations for picocli; {@link
 * Main#commandLine()} registers it for every {@code Duration} option of every command.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
