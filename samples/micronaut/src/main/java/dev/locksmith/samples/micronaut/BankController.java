package dev.locksmith.samples.micronaut;

import dev.locksmith.core.LockTimeoutException;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;

/**
 * {@code GET /accounts} lists the balances; {@code POST /transfers} moves money. Runs on the
 * blocking executor: waiting for a lock must never block Netty's event loop.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
class BankController {
  private final Accounts accounts;
  private final Transfers transfers;

  BankController(Accounts accounts, Transfers transfers) {
    this.accounts = accounts;
    this.transfers = transfers;
  }

  @Get("/accounts")
  Map<String, Long> balances() {
    return accounts.all();
  }

  @Post("/transfers")
  Receipt transfer(@Body TransferRequest request) {
    return transfers.transfer(request.from(), request.to(), request.cents());
  }

  @Error(exception = IllegalArgumentException.class)
  HttpResponse<Problem> badRequest(IllegalArgumentException e) {
    return HttpResponse.<Problem>status(HttpStatus.BAD_REQUEST)
        .body(new Problem(String.valueOf(e.getMessage())));
  }

  @Error(exception = InsufficientFundsException.class)
  HttpResponse<Problem> insufficientFunds(InsufficientFundsException e) {
    return HttpResponse.<Problem>status(HttpStatus.CONFLICT)
        .body(new Problem(String.valueOf(e.getMessage())));
  }

  @Error(exception = LockTimeoutException.class)
  HttpResponse<Problem> busy(LockTimeoutException e) {
    return HttpResponse.<Problem>status(HttpStatus.SERVICE_UNAVAILABLE)
        .header("Retry-After", "1")
        .body(new Problem(String.valueOf(e.getMessage())));
  }
}
