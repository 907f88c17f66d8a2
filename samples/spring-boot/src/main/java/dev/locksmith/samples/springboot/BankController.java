package dev.locksmith.samples.springboot;

import dev.locksmith.core.LockTimeoutException;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The HTTP API: transfers, balances and the latest report. */
@RestController
final class BankController {
  private final Transfers transfers;
  private final Ledger ledger;
  private final BalanceReportJob reports;

  BankController(Transfers transfers, Ledger ledger, BalanceReportJob reports) {
    this.transfers = transfers;
    this.ledger = ledger;
    this.reports = reports;
  }

  /** {@code POST /accounts/alice/transfer?to=bob&cents=250}. */
  @PostMapping("/accounts/{from}/transfer")
  TransferResult transfer(
      @PathVariable String from, @RequestParam String to, @RequestParam long cents) {
    return transfers.transfer(from, to, cents);
  }

  /** {@code GET /accounts}: every account and its balance. */
  @GetMapping("/accounts")
  List<Account> accounts() {
    return ledger.accounts();
  }

  /** {@code GET /reports/latest}: the last report this instance made, or 204. */
  @GetMapping("/reports/latest")
  ResponseEntity<BalanceReport> latestReport() {
    return reports
        .latest()
        .map(ResponseEntity::ok)
        .orElseGet(() -> ResponseEntity.noContent().build());
  }

  @ExceptionHandler
  ProblemDetail insufficientFunds(InsufficientFundsException e) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
  }

  @ExceptionHandler
  ProblemDetail unknownAccount(UnknownAccountException e) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
  }

  @ExceptionHandler
  ProblemDetail badRequest(IllegalArgumentException e) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
  }

  /**
   * Try again: the account stayed locked longer than {@code bank.transfer.wait-timeout}, or our
   * lease ran out and a later holder wrote, so nothing was changed.
   */
  @ExceptionHandler({LockTimeoutException.class, FencedOffException.class})
  ProblemDetail tryAgain(RuntimeException e) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
  }
}
