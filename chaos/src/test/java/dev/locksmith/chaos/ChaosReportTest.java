package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The chaos report's JSON stays JSON whatever a scenario measured. */
class ChaosReportTest {
  @Test
  void aFigureThatIsNoNumberIsWrittenAsNull() {
    assertThat(ChaosReport.jsonValue(Double.NaN)).isEqualTo("null");
    assertThat(ChaosReport.jsonValue(Double.POSITIVE_INFINITY)).isEqualTo("null");
    assertThat(ChaosReport.jsonValue(Float.NaN)).isEqualTo("null");
  }

  @Test
  void numbersAndBooleansAreBareAndTextIsQuotedAndEscaped() {
    assertThat(ChaosReport.jsonValue(12.5)).isEqualTo("12.5");
    assertThat(ChaosReport.jsonValue(3L)).isEqualTo("3");
    assertThat(ChaosReport.jsonValue(true)).isEqualTo("true");
    assertThat(ChaosReport.jsonValue("say \"hi\"\n")).isEqualTo("\"say \\\"hi\\\"\\n\"");
  }
}
