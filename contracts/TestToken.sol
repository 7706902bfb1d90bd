// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestToken
/// @notice A plain ERC-20 for local payment tests: whatever the owner mints, nothing else (no fees, no hooks),
/// so a test controls every balance and every Transfer log it sees.
contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    address public immutable owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
    }

    /// @notice Creates `amount` for `to`; logged as a Transfer from the zero address, as ERC-20 wallets expect.
    function mint(address to, uint256 amount) external {
        require(msg.sender == owner, "TestToken: not the owner");
        require(to != address(0), "TestToken: mint to the zero address");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        // The usual convention: an infinite approval is never spent down.
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "TestToken: insufficient allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        require(to != address(0), "TestToken: transfer to the zero address");
        uint256 balance = balanceOf[from];
        // An explicit message (rather than 0.8's arithmetic panic) so a reverted payment is easy to read.
        require(balance >= amount, "TestToken: transfer amount exceeds balance");
        balanceOf[from] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
