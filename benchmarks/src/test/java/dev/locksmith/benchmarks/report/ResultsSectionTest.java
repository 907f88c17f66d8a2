package dev.locksmith.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsSectionTest {
  private static final ResultsSection SECTION = ResultsSection.CAPACITY;

  @TempDir Path dir;

  @Test
  void aSectionIsAppendedOnceThenReplacedInPlace() {
    String first = SECTION.put("# Results\n\n## 1. Other\n", "## 3. Capacity\n\nold figures\n");
    assertThat(first)
        .startsWith("# Results\n\n## 1. Other\n\n<!-- capacity:begin")
        .endsWith("old figures\n<!-- capacity:end -->\n");
    String second = SECTION.put(first + "\nafter\n", "## 3. Capacity\n\nnew figures");
    assertThat(second).contains("new figures").doesNotContain("old figures").endsWith("after\n");
    assertThat(second.split("capacity:begin", -1)).hasSize(2);
  }

  @Test
  void runShCarriesTheSectionOverWhenItRewritesTheFile() throws Exception {
    Path results = dir.resolve("RESULTS.md");
    Files.writeString(results, "# Results\n\nold report\n");
    SECTION.write(results, "## 3. Capacity\n\nfigures");
    String rewritten = SECTION.carryOver(results, "# Results\n\nnew report\n");
    assertThat(rewritten).startsWith("# Results\n\nnew report\n").contains("figures");
    assertThat(SECTION.carryOver(dir.resolve("missing.md"), "report")).isEqualTo("report");
  }
}
