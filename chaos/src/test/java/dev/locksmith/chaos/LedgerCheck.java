package dev.locksmith.chaos;

import dev.locksmith.core.fencing.FencedFile;
import dev.locksmith.testkit.History;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks the sections of a read-modify-write run: confirmed sections (lease valid after the write)
 * against the mutex model (no overlap, tokens increasing with start time), and every accepted
 * ledger write for lost updates (the values, in token order, must be exactly 1, 2, 3, ...).
 *
 * @param sections every accepted write, confirmed or not, sorted by start time
 * @param history the confirmed sections checked by the test kit's mutex model
 * @param violations everything found wrong, empty for a correct run
 * @param handOffs the gaps between one confirmed section's end and the next one's start, in ns
 */
record LedgerCheck(
    List<Section> sections, History history, List<String> violations, List<Long> handOffs) {

  static LedgerCheck of(List<Section> recorded, FencedFile ledger) {
    List<Section> sections = new ArrayList<>(recorded);
    sections.sort(Comparator.comparingLong(Section::startNanos));
    List<Section> confirmed = sections.stream().filter(Section::confirmed).toList();
    History history = History.check(confirmed.stream().map(Section::critical).toList());
    List<String> violations = new ArrayList<>(history.violations());

    List<Section> byToken = new ArrayList<>(sections);
    byToken.sort(Comparator.comparingLong(Section::token));
    for (int i = 0; i < byToken.size(); i++) {
      Section section = byToken.get(i);
      if (section.value() != i + 1) {
        violations.add(
            "lost update: write #"
                + (i + 1)
                + " in token order wrote "
                + section.value()
                + " ("
                + section.toLine()
                + ")");
        break;
      }
    }
    FencedFile.Fenced last = ledger.read();
    long value = WorkerIo.ledgerValue(last.value());
    if (value != sections.size()) {
      violations.add(
          "lost updates: the ledger holds "
              + value
              + " after "
              + sections.size()
              + " accepted writes");
    }
    if (!byToken.isEmpty() && last.token() != byToken.get(byToken.size() - 1).token()) {
      violations.add(
          "the ledger's last token "
              + last.token()
              + " is not the highest written, "
              + byToken.get(byToken.size() - 1).token());
    }
    List<Long> handOffs = new ArrayList<>();
    for (int i = 1; i < confirmed.size(); i++) {
      handOffs.add(confirmed.get(i).startNanos() - confirmed.get(i - 1).endNanos());
    }
    return new LedgerCheck(List.copyOf(sections), history, List.copyOf(violations), handOffs);
  }

  long unconfirmed() {
    return sections.stream().filter(s -> !s.confirmed()).count();
  }
}
