// account_cxx: a small bank account shared by a payroll thread and a card
// terminal, in C++ with std::thread, std::mutex and std::atomic.
//
// The bug: deposit() and withdraw() both update balance_, but each takes a
// different mutex (a refactoring split one lock into two, one per kind of
// operation). Each update is a read-modify-write of balance_; when the
// terminal's withdraw() reads the balance, is preempted before it writes
// it back, and payroll deposits meanwhile, the deposit is overwritten and
// lost. The operation counter is a std::atomic and is always right.
//
// Interleaving (depth 2): one thread preempted between its load and its
// store of balance_ (any of its 300 operations) while the other thread runs
// at least one update. Detected at the end: the balance must equal the sum
// of deposits minus withdrawals; if not, the program prints the difference
// and aborts.
//
// Natively (2 cores) the threads run in parallel for well under a
// millisecond: see guest/tests/README.md for the measured rate.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

class Account {
public:
	void deposit(long amount)
	{
		std::lock_guard<std::mutex> guard(deposit_mutex_);
		balance_ = balance_ + amount;
		operations_.fetch_add(1, std::memory_order_relaxed);
	}

	void withdraw(long amount)
	{
		std::lock_guard<std::mutex> guard(withdraw_mutex_);
		balance_ = balance_ - amount;
		operations_.fetch_add(1, std::memory_order_relaxed);
	}

	long balance() const { return balance_; }
	int operations() const { return operations_.load(); }

private:
	std::mutex deposit_mutex_;
	std::mutex withdraw_mutex_;
	volatile long balance_ = 0;
	std::atomic<int> operations_{0};
};

static constexpr int kRounds = 300;

int main()
{
	Account account;
	std::thread payroll([&account] {
		for (int i = 0; i < kRounds; i++)
			account.deposit(100);
	});
	std::thread terminal([&account] {
		for (int i = 0; i < kRounds; i++)
			account.withdraw(30);
	});
	payroll.join();
	terminal.join();

	long expected = kRounds * 100L - kRounds * 30L;
	if (account.balance() != expected) {
		std::fprintf(stderr, "account_cxx: balance %ld after %d operations, expected %ld\n",
			     account.balance(), account.operations(), expected);
		std::abort();
	}
	std::printf("account_cxx: balance %ld after %d operations\n", account.balance(),
		    account.operations());
	return 0;
}
