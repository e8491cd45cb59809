//! `Fn::Cidr [ipBlock, count, cidrBits]`: real subnet arithmetic for IPv4 and IPv6 (user guide
//! "Fn::Cidr"). `cidrBits` is the number of host bits of each subnet, so the subnets' prefix is
//! `32 - cidrBits` (IPv4) or `128 - cidrBits` (IPv6); they are consecutive from the block's
//! network address. `count` is 1 to 256. Pure arithmetic on `u128`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::error::{CidrProblem, ErrorKind, TemplateError};

fn invalid(problem: CidrProblem) -> TemplateError {
    ErrorKind::Cidr(problem).into()
}

/// The `count` subnets of `block` with `bits` host bits each, as CIDR strings.
pub(crate) fn cidr(block: &str, count: &str, bits: &str) -> Result<Vec<String>, TemplateError> {
    let bad_block = || invalid(CidrProblem::Block(block.to_string()));
    let (addr, prefix) = block.split_once('/').ok_or_else(bad_block)?;
    let addr: IpAddr = addr.parse().map_err(|_| bad_block())?;
    let width: u32 = if addr.is_ipv4() { 32 } else { 128 };
    let prefix: u32 = prefix
        .parse()
        .ok()
        .filter(|p| *p <= width)
        .ok_or_else(bad_block)?;
    let count: u32 = count
        .trim()
        .parse()
        .ok()
        .filter(|c| (1..=256).contains(c))
        .ok_or_else(|| invalid(CidrProblem::Count))?;
    let bits: u32 = bits
        .trim()
        .parse()
        .ok()
        .filter(|b| *b >= 1 && *b <= width)
        .ok_or_else(|| invalid(CidrProblem::Bits(width)))?;
    let subnet_prefix = width - bits;
    if subnet_prefix < prefix {
        return Err(invalid(CidrProblem::NoRoom {
            bits,
            block: block.to_string(),
        }));
    }
    let available_bits = subnet_prefix - prefix;
    if available_bits < 32 && u64::from(count) > 1u64 << available_bits {
        return Err(invalid(CidrProblem::TooMany {
            count,
            bits,
            block: block.to_string(),
        }));
    }
    let value: u128 = match addr {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    };
    let host_mask: u128 = if prefix == 0 {
        if width == 128 {
            u128::MAX
        } else {
            (1u128 << width) - 1
        }
    } else {
        (1u128 << (width - prefix)) - 1
    };
    let network = value & !host_mask;
    let step: u128 = 1u128 << bits.min(127);
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..u128::from(count) {
        let start = network + i * step;
        let text = match addr {
            IpAddr::V4(_) => Ipv4Addr::from(start as u32).to_string(),
            IpAddr::V6(_) => Ipv6Addr::from(start).to_string(),
        };
        out.push(format!("{text}/{subnet_prefix}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::cidr;

    #[test]
    fn subnets_follow_the_user_guide_examples() {
        let cases: &[(&str, &str, &str, &[&str])] = &[
            (
                "192.168.0.0/24",
                "6",
                "5",
                &[
                    "192.168.0.0/27",
                    "192.168.0.32/27",
                    "192.168.0.64/27",
                    "192.168.0.96/27",
                    "192.168.0.128/27",
                    "192.168.0.160/27",
                ],
            ),
            ("10.0.0.0/16", "2", "8", &["10.0.0.0/24", "10.0.1.0/24"]),
            ("10.0.5.7/16", "1", "12", &["10.0.0.0/20"]),
            ("0.0.0.0/0", "1", "32", &["0.0.0.0/0"]),
            (
                "2001:db8::/56",
                "3",
                "64",
                &["2001:db8::/64", "2001:db8:0:1::/64", "2001:db8:0:2::/64"],
            ),
        ];
        for (block, count, bits, want) in cases {
            assert_eq!(cidr(block, count, bits).expect(block), *want, "{block}");
        }
    }

    #[test]
    fn bad_arguments_are_template_errors() {
        let cases: &[(&str, &str, &str, &str)] = &[
            ("192.168.0.0", "1", "5", "Template error: Fn::Cidr requires an IP address block in CIDR notation, got 192.168.0.0"),
            ("300.1.1.1/8", "1", "5", "Template error: Fn::Cidr requires an IP address block in CIDR notation, got 300.1.1.1/8"),
            ("10.0.0.0/33", "1", "5", "Template error: Fn::Cidr requires an IP address block in CIDR notation, got 10.0.0.0/33"),
            ("10.0.0.0/24", "0", "5", "Template error: Fn::Cidr count must be a number from 1 to 256"),
            ("10.0.0.0/24", "257", "5", "Template error: Fn::Cidr count must be a number from 1 to 256"),
            ("10.0.0.0/24", "1", "0", "Template error: Fn::Cidr cidrBits must be a number from 1 to 32"),
            ("10.0.0.0/24", "1", "9", "Template error: Fn::Cidr cannot make subnets of 9 host bits in 10.0.0.0/24"),
            ("10.0.0.0/24", "9", "5", "Template error: Fn::Cidr cannot make 9 subnets of 5 host bits in 10.0.0.0/24"),
        ];
        for (block, count, bits, want) in cases {
            let err = cidr(block, count, bits).expect_err(block);
            assert_eq!(err.to_string(), *want);
        }
    }
}
